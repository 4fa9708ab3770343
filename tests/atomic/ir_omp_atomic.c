/*
 * ir_omp_atomic.c - FileCheck test of the dsm-atomic plug-in on the code
 * clang 14 emits for `#pragma omp atomic` (update, read, write, capture) on
 * int, long, short, char, float and double, for long double and double
 * complex (libatomic calls), and for the atomic path of a reduction.
 * Compiled at -O0 and -O2 (tests/atomic/meson.build): no atomic instruction
 * and no libatomic call may remain, since every address here (globals,
 * pointer arguments, shared locals of a parallel region) may be sharable.
 */

int gi;
long gl;
short gs;
char gc;
float gf;
double gd;
long double gld;
double _Complex gz;

// int and long: one read-modify-write (op 1 add, 2 sub, relaxed).  short
// and char are computed in int, so clang loops on a compare-exchange, whose
// first expected value may be a recent one (load_seed).
// CHECK-LABEL: define{{.*}} void @update_int(
// CHECK: call i64 @__dsm_atomic_rmw_4(i8* {{.*}}@gi{{.*}}, i64 {{.*}}, i32 1, i32 0)
// CHECK: call i64 @__dsm_atomic_rmw_8(i8* {{.*}}@gl{{.*}}, i64 {{.*}}, i32 2, i32 0)
// CHECK: call i64 @__dsm_atomic_load_seed_2(i8* {{.*}}@gs{{.*}}, i32 0)
// CHECK: call i64 @__dsm_atomic_cmpxchg_2(i8* {{.*}}@gs{{.*}}, i64 {{.*}}, i64 {{.*}}, i32 0, i32 0)
// CHECK: call i64 @__dsm_atomic_load_seed_1(i8* {{.*}}@gc{{.*}}, i32 0)
// CHECK: call i64 @__dsm_atomic_cmpxchg_1(i8* {{.*}}@gc{{.*}}, i64 {{.*}}, i64 {{.*}}, i32 0, i32 0)
// CHECK: ret void
void update_int(int v)
{
#pragma omp atomic
    gi += v;
#pragma omp atomic
    gl -= v;
#pragma omp atomic
    gs ^= (short)v;
#pragma omp atomic
    gc |= (char)v;
}

// Float and double updates: an atomic load that only seeds a compare-exchange
// loop (load_seed), then the loop.  An atomic read stays an exact load.
// CHECK-LABEL: define{{.*}} void @update_float(
// CHECK: call i64 @__dsm_atomic_load_seed_4(i8* {{.*}}@gf{{.*}}, i32 0)
// CHECK: call i64 @__dsm_atomic_cmpxchg_4(i8* {{.*}}@gf{{.*}}, i64 {{.*}}, i64 {{.*}}, i32 0, i32 0)
// CHECK: call i64 @__dsm_atomic_load_seed_8(i8* {{.*}}@gd{{.*}}, i32 0)
// CHECK: call i64 @__dsm_atomic_cmpxchg_8(i8* {{.*}}@gd{{.*}}, i64 {{.*}}, i64 {{.*}}, i32 0, i32 0)
// CHECK: ret void
void update_float(double v)
{
#pragma omp atomic
    gf *= (float)v;
#pragma omp atomic
    gd += v;
}

// CHECK-LABEL: define{{.*}} i64 @read_write_capture(
// CHECK: call i64 @__dsm_atomic_load_8(i8* {{.*}}, i32 5)
// CHECK: call void @__dsm_atomic_store_8(i8* {{.*}}, i64 {{.*}}, i32 5)
// CHECK: call i64 @__dsm_atomic_rmw_8(i8* {{.*}}, i64 {{.*}}, i32 1, i32 5)
// CHECK: call i64 @__dsm_atomic_rmw_4(i8* {{.*}}@gi{{.*}}, i64 {{.*}}, i32 0, i32 0)
// CHECK: ret i64
long read_write_capture(long *p, long v)
{
    long old, seen;
#pragma omp atomic read seq_cst
    seen = *p;
#pragma omp atomic write seq_cst
    *p = v + seen;
#pragma omp atomic capture seq_cst
    {
        old = *p;
        *p += 1;
    }
#pragma omp atomic capture
    {
        seen = gi;
        gi = (int)v;
    }
    return old + seen;
}

// long double and double complex go through libatomic's generic calls.
// CHECK-LABEL: define{{.*}} void @update_wide(
// CHECK: call void @__dsm_libatomic_load(i64 noundef 16, i8* {{.*}}@gld
// CHECK: call zeroext i1 @__dsm_libatomic_compare_exchange(i64 noundef 16, i8* {{.*}}@gld
// CHECK: call void @__dsm_libatomic_load(i64 noundef 16, i8* {{.*}}@gz
// CHECK: call zeroext i1 @__dsm_libatomic_compare_exchange(i64 noundef 16, i8* {{.*}}@gz
// CHECK: ret void
void update_wide(double v)
{
#pragma omp atomic
    gld += v;
#pragma omp atomic
    gz += v;
}

// The shared local of a parallel region is passed to the outlined function
// by address, and the reduction's atomic path (never chosen by dsmomp, but
// compiled) updates the original through a pointer too.
// CHECK-LABEL: define{{.*}} double @region(
// CHECK: call void {{.*}}@__kmpc_fork_call(
// CHECK: ret double
// CHECK-LABEL: define internal void @.omp_outlined.(
// CHECK: call i64 @__dsm_atomic_rmw_4(i8* {{.*}}, i64 {{.*}}, i32 1, i32 0)
// CHECK: call i64 @__dsm_atomic_load_seed_8(i8* {{.*}}, i32 0)
// CHECK: call i64 @__dsm_atomic_cmpxchg_8(i8* {{.*}}, i64 {{.*}}, i64 {{.*}}, i32 0, i32 0)
// CHECK: call i64 @__dsm_atomic_rmw_4(i8* {{.*}}, i64 {{.*}}, i32 7, i32 0)
double region(int n)
{
    int count = 0, biggest = 0;
    double sum = 0;
#pragma omp parallel reduction(+ : sum) reduction(max : biggest)
    {
#pragma omp atomic
        count++;
        sum += n;
        biggest = biggest > n ? biggest : n;
    }
    return sum + count + biggest;
}

// The runtime entry points are declared once, with no unwinding.
// CHECK-DAG: declare i64 @__dsm_atomic_rmw_4(i8*, i64, i32, i32) [[ATTR:#[0-9]+]]
// CHECK-DAG: attributes [[ATTR]] = { nounwind }
