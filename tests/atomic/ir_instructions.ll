; ir_instructions.ll - FileCheck test of the dsm-atomic pass on atomic
; instructions clang rarely or never emits for `omp atomic`, run through
; opt -passes=dsm-atomic: every read-modify-write operation, both routes
; (word entries and libatomic twins), the cmpxchg result pair, pointers,
; floats, memory orders, the loads that seed compare-exchange loops, and
; the cases left native.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@w = global i32 0, align 4
@q = global i64 0, align 8
@h = global half 0xH0000, align 2
@o = global i128 0, align 16
@p = global i8* null, align 8

; Every binop of LLVM 14 has a word entry (op numbers of atomic_abi.h).
; CHECK-LABEL: define void @rmw_ops(
; CHECK: call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 1, i32 0, i32 0)
; CHECK: call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 1, i32 1, i32 2)
; CHECK: call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 1, i32 2, i32 3)
; CHECK: call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 1, i32 3, i32 4)
; CHECK: call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 1, i32 4, i32 5)
; CHECK: call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 1, i32 5, i32 0)
; CHECK: call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 1, i32 6, i32 0)
; CHECK: call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 4294967295, i32 7, i32 0)
; CHECK: call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 1, i32 8, i32 0)
; CHECK: call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 1, i32 9, i32 0)
; CHECK: call i64 @__dsm_atomic_rmw_8(i8* bitcast (i64* @q to i8*), i64 1, i32 10, i32 0)
; CHECK: [[F:%.*]] = call i64 @__dsm_atomic_rmw_4(i8* bitcast (i32* @w to i8*), i64 1065353216, i32 11, i32 5)
; CHECK: [[FT:%.*]] = trunc i64 [[F]] to i32
; CHECK: bitcast i32 [[FT]] to float
; CHECK: [[D:%.*]] = call i64 @__dsm_atomic_rmw_8(i8* bitcast (i64* @q to i8*), i64 4611686018427387904, i32 12, i32 5)
; CHECK: bitcast i64 [[D]] to double
; CHECK: ret void
define void @rmw_ops() {
  %1 = atomicrmw xchg i32* @w, i32 1 monotonic
  %2 = atomicrmw add i32* @w, i32 1 acquire
  %3 = atomicrmw sub i32* @w, i32 1 release
  %4 = atomicrmw and i32* @w, i32 1 acq_rel
  %5 = atomicrmw nand i32* @w, i32 1 seq_cst
  %6 = atomicrmw or i32* @w, i32 1 monotonic
  %7 = atomicrmw xor i32* @w, i32 1 monotonic
  %8 = atomicrmw max i32* @w, i32 -1 monotonic
  %9 = atomicrmw min i32* @w, i32 1 monotonic
  %10 = atomicrmw umax i32* @w, i32 1 monotonic
  %11 = atomicrmw umin i64* @q, i64 1 monotonic
  %12 = atomicrmw fadd float* bitcast (i32* @w to float*), float 1.0 seq_cst
  %13 = atomicrmw fsub double* bitcast (i64* @q to double*), double 2.0 seq_cst
  %14 = fadd float %12, 1.0
  %15 = fadd double %13, 1.0
  ret void
}

; cmpxchg: the old value comes back, success is old == expected; users of
; the pair through extractvalue get the values directly, others a rebuilt
; pair.  Failure order travels separately.
; CHECK-LABEL: define i1 @cmpxchg_pair(
; CHECK: [[E:%.*]] = zext i32 %e to i64
; CHECK: [[N:%.*]] = zext i32 %n to i64
; CHECK: [[OLD:%.*]] = call i64 @__dsm_atomic_cmpxchg_4(i8* bitcast (i32* @w to i8*), i64 [[E]], i64 [[N]], i32 4, i32 2)
; CHECK: [[OLD32:%.*]] = trunc i64 [[OLD]] to i32
; CHECK: [[OK:%.*]] = icmp eq i64 [[OLD]], [[E]]
; CHECK: [[PAIR0:%.*]] = insertvalue { i32, i1 } undef, i32 [[OLD32]], 0
; CHECK: [[PAIR:%.*]] = insertvalue { i32, i1 } [[PAIR0]], i1 [[OK]], 1
; CHECK: store { i32, i1 } [[PAIR]], { i32, i1 }* %slot
; CHECK: ret i1 [[OK]]
define i1 @cmpxchg_pair(i32 %e, i32 %n, { i32, i1 }* %slot) {
  %x = cmpxchg weak i32* @w, i32 %e, i32 %n acq_rel acquire
  store { i32, i1 } %x, { i32, i1 }* %slot
  %ok = extractvalue { i32, i1 } %x, 1
  ret i1 %ok
}

; Pointers travel as integers.
; CHECK-LABEL: define i8* @pointers(
; CHECK: [[L:%.*]] = call i64 @__dsm_atomic_load_8(i8* bitcast (i8** @p to i8*), i32 2)
; CHECK: inttoptr i64 [[L]] to i8*
; CHECK: [[V:%.*]] = ptrtoint i8* %v to i64
; CHECK: call void @__dsm_atomic_store_8(i8* bitcast (i8** @p to i8*), i64 [[V]], i32 3)
; CHECK: call i64 @__dsm_atomic_cmpxchg_8(i8* bitcast (i8** @p to i8*), i64 0, i64 %{{.*}}, i32 5, i32 5)
; CHECK: ret i8*
define i8* @pointers(i8* %v) {
  %old = load atomic i8*, i8** @p acquire, align 8
  store atomic i8* %v, i8** @p release, align 8
  %x = cmpxchg i8** @p, i8* null, i8* %v seq_cst seq_cst
  %y = extractvalue { i8*, i1 } %x, 0
  ret i8* %y
}

; A load whose value only seeds a compare-exchange loop on its own address,
; leaving on success, may be answered with a recent value (load_seed).  A
; loop that also writes memory others may see, a seed also used elsewhere,
; and a loop on another address keep the exact load.
; CHECK-LABEL: define void @seed_loop(
; CHECK: call i64 @__dsm_atomic_load_seed_8(i8* bitcast (i64* @q to i8*), i32 0)
; CHECK: call i64 @__dsm_atomic_cmpxchg_8(i8* bitcast (i64* @q to i8*)
; CHECK-LABEL: define void @seed_loop_store(
; CHECK: call i64 @__dsm_atomic_load_8(i8* bitcast (i64* @q to i8*), i32 0)
; CHECK-LABEL: define i64 @seed_loop_extra_use(
; CHECK: call i64 @__dsm_atomic_load_8(i8* bitcast (i64* @q to i8*), i32 0)
; CHECK-LABEL: define void @seed_loop_other_address(
; CHECK: call i64 @__dsm_atomic_load_8(i8* bitcast (i64* @q to i8*), i32 0)
; CHECK: ret void
define void @seed_loop(i64 %add) {
entry:
  %slot = alloca i64, align 8
  %seed = load atomic i64, i64* @q monotonic, align 8
  br label %loop
loop:
  %old = phi i64 [ %seed, %entry ], [ %found, %loop ]
  %new = add i64 %old, %add
  store i64 %new, i64* %slot, align 8
  %pair = cmpxchg i64* @q, i64 %old, i64 %new monotonic monotonic
  %found = extractvalue { i64, i1 } %pair, 0
  %ok = extractvalue { i64, i1 } %pair, 1
  br i1 %ok, label %done, label %loop
done:
  ret void
}
define void @seed_loop_store(i64 %add) {
entry:
  %seed = load atomic i64, i64* @q monotonic, align 8
  br label %loop
loop:
  %old = phi i64 [ %seed, %entry ], [ %found, %loop ]
  %new = add i64 %old, %add
  store i32 1, i32* @w, align 4
  %pair = cmpxchg i64* @q, i64 %old, i64 %new monotonic monotonic
  %found = extractvalue { i64, i1 } %pair, 0
  %ok = extractvalue { i64, i1 } %pair, 1
  br i1 %ok, label %done, label %loop
done:
  ret void
}
define i64 @seed_loop_extra_use(i64 %add) {
entry:
  %seed = load atomic i64, i64* @q monotonic, align 8
  %copy = add i64 %seed, 0
  br label %loop
loop:
  %old = phi i64 [ %seed, %entry ], [ %found, %loop ]
  %new = add i64 %old, %add
  %pair = cmpxchg i64* @q, i64 %old, i64 %new monotonic monotonic
  %found = extractvalue { i64, i1 } %pair, 0
  %ok = extractvalue { i64, i1 } %pair, 1
  br i1 %ok, label %done, label %loop
done:
  ret i64 %copy
}
define void @seed_loop_other_address(i64 %add, i64* %other) {
entry:
  %seed = load atomic i64, i64* @q monotonic, align 8
  br label %loop
loop:
  %old = phi i64 [ %seed, %entry ], [ %found, %loop ]
  %new = add i64 %old, %add
  %pair = cmpxchg i64* %other, i64 %old, i64 %new monotonic monotonic
  %found = extractvalue { i64, i1 } %pair, 0
  %ok = extractvalue { i64, i1 } %pair, 1
  br i1 %ok, label %done, label %loop
done:
  ret void
}

; 16 bytes take libatomic's signatures; max has no libatomic twin, and fadd
; on half no word entry: both become compare-exchange loops first.
; CHECK-LABEL: define void @wide_and_odd(
; CHECK: call i128 @__dsm_libatomic_load_16(i8* bitcast (i128* @o to i8*), i32 0)
; CHECK: call void @__dsm_libatomic_store_16(i8* bitcast (i128* @o to i8*), i128 %v, i32 3)
; CHECK: call i128 @__dsm_libatomic_fetch_add_16(i8* bitcast (i128* @o to i8*), i128 %v, i32 5)
; CHECK: call i128 @__dsm_libatomic_exchange_16(i8* bitcast (i128* @o to i8*), i128 %v, i32 5)
; CHECK: atomicrmw.start:
; CHECK: call zeroext i1 @__dsm_libatomic_compare_exchange_16(i8* bitcast (i128* @o to i8*), i8* %{{.*}}, i128 %{{.*}}, i32 5, i32 5)
; CHECK: atomicrmw.start{{[0-9]+}}:
; CHECK: fadd half
; CHECK: call i64 @__dsm_atomic_cmpxchg_2(i8* bitcast (half* @h to i8*), i64 %{{.*}}, i64 %{{.*}}, i32 0, i32 0)
; CHECK: ret void
define void @wide_and_odd(i128 %v) {
  %1 = load atomic i128, i128* @o unordered, align 16
  store atomic i128 %v, i128* @o release, align 16
  %2 = atomicrmw add i128* @o, i128 %v seq_cst
  %3 = atomicrmw xchg i128* @o, i128 %v seq_cst
  %4 = atomicrmw max i128* @o, i128 %v seq_cst
  %5 = atomicrmw fadd half* @h, half 0xH3C00 monotonic
  ret void
}

; Under-aligned words go to libatomic's sized twins (zero-extended when
; narrower than int); 16-byte cmpxchg passes expected through memory.
; CHECK-LABEL: define i16 @under_aligned(
; CHECK: call i32 @__dsm_libatomic_fetch_add_4(i8* %{{.*}}, i32 1, i32 0)
; CHECK: call void @__dsm_libatomic_store_2(i8* %{{.*}}, i16 zeroext 7, i32 5)
; CHECK: call zeroext i1 @__dsm_libatomic_compare_exchange_2(i8* %{{.*}}, i8* %{{.*}}, i16 zeroext 2, i32 5, i32 2)
; CHECK: [[OLD:%.*]] = load i16, i16* %dsm.atomic.slot
; CHECK: ret i16 [[OLD]]
define i16 @under_aligned(i32* %a, i16* %b) {
  %1 = atomicrmw add i32* %a, i32 1 monotonic, align 2
  store atomic i16 7, i16* %b seq_cst, align 1
  %x = cmpxchg i16* %b, i16 1, i16 2 seq_cst acquire, align 1
  %old = extractvalue { i16, i1 } %x, 0
  ret i16 %old
}

; Left native: a private stack slot, another address space (x86 segment),
; and the single-thread sync scope (ordering against signal handlers).
; Plain loads and stores are never touched.
; CHECK-LABEL: define i32 @native(
; CHECK-NOT: @__dsm
; CHECK: atomicrmw add i32* %local, i32 1 seq_cst
; CHECK: load atomic i32, i32 addrspace(256)* %seg seq_cst
; CHECK: atomicrmw add i32* @w, i32 1 syncscope("singlethread") monotonic
; CHECK: store i32 3, i32* @w
; CHECK-NOT: @__dsm
; CHECK: ret i32
define i32 @native(i32 addrspace(256)* %seg) {
  %local = alloca i32, align 4
  store i32 0, i32* %local
  %1 = atomicrmw add i32* %local, i32 1 seq_cst
  %2 = load atomic i32, i32 addrspace(256)* %seg seq_cst, align 4
  %3 = atomicrmw add i32* @w, i32 1 syncscope("singlethread") monotonic
  store i32 3, i32* @w
  ret i32 %2
}

; Volatile atomics are rewritten like the others.
; CHECK-LABEL: define i32 @volatile_load(
; CHECK: call i64 @__dsm_atomic_load_4(i8* %{{.*}}, i32 5)
define i32 @volatile_load(i32* %a) {
  %1 = load atomic volatile i32, i32* %a seq_cst, align 4
  ret i32 %1
}

; Calls to libatomic on possibly sharable memory go to the twins with the
; same signature; calls libatomic does not define stay.  clang passes an
; __int128 as two i64 where the pass writes i128 (wide_and_odd): the second
; type reaches the same function through a bitcast, and x86-64 passes both
; in the same registers.
; CHECK-LABEL: define void @libcalls(
; CHECK: call void @__dsm_libatomic_load(i64 16, i8* %obj, i8* %out, i32 5)
; CHECK: call { i64, i64 } {{.*}}@__dsm_libatomic_fetch_add_16{{.*}}(i8* %obj, i64 1, i64 0, i32 5)
; CHECK: call zeroext i8 @__dsm_libatomic_exchange_1(i8* %obj, i8 zeroext 1, i32 5)
; CHECK: call i64 @__atomic_fetch_max_8(i8* %obj, i64 1, i32 5)
; CHECK: ret void
define void @libcalls(i8* %obj, i8* %out) {
  call void @__atomic_load(i64 16, i8* %obj, i8* %out, i32 5)
  %1 = call { i64, i64 } @__atomic_fetch_add_16(i8* %obj, i64 1, i64 0, i32 5)
  %2 = call zeroext i8 @__atomic_exchange_1(i8* %obj, i8 zeroext 1, i32 5)
  %3 = call i64 @__atomic_fetch_max_8(i8* %obj, i64 1, i32 5)
  ret void
}
declare void @__atomic_load(i64, i8*, i8*, i32)
declare { i64, i64 } @__atomic_fetch_add_16(i8*, i64, i64, i32)
declare zeroext i8 @__atomic_exchange_1(i8*, i8 zeroext, i32)
declare i64 @__atomic_fetch_max_8(i8*, i64, i32)

; The renamed libatomic declarations are gone.
; CHECK-NOT: declare void @__atomic_load(
; CHECK-NOT: declare { i64, i64 } @__atomic_fetch_add_16(
