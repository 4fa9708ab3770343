/*
 * ir_locals.c - FileCheck test of the rule deciding which atomic accesses
 * the dsm-atomic plug-in leaves native: only those on a stack slot of the
 * function itself whose address never escapes.  Anything else - a local
 * whose address is passed on or stored, a thread-local, a pointer chosen
 * between a local and a global - goes to the runtime, which checks the
 * address at run time.  Compiled at -O0 and -O2.
 */

int shared_word;
_Thread_local int per_thread;
int *published;

void publish(int *p);

// CHECK-LABEL: define{{.*}} i32 @private_counter(
// CHECK-NOT: @__dsm_atomic
// CHECK: atomicrmw add i32* %{{[0-9]+}}, i32 {{.*}} seq_cst
// CHECK-NOT: @__dsm_atomic
// CHECK: ret i32
int private_counter(int n)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        __atomic_fetch_add(&count, 1, __ATOMIC_SEQ_CST);
    return count;
}

// Fields of local structs, and a choice between two locals.
// CHECK-LABEL: define{{.*}} i32 @private_fields(
// CHECK-NOT: @__dsm_atomic
// CHECK: atomicrmw xchg i8* %{{.*}}, i8 {{.*}} seq_cst
// CHECK-NOT: @__dsm_atomic
// CHECK: cmpxchg i64* %{{.*}} seq_cst seq_cst
// CHECK-NOT: @__dsm_atomic
// CHECK: ret i32
int private_fields(long want, int pick)
{
    struct { char flag; long word; } a = {0, 0}, b = {0, 0};
    char was = __atomic_exchange_n(&a.flag, 1, __ATOMIC_SEQ_CST);
    __atomic_compare_exchange_n(pick ? &a.word : &b.word, &want, 5, 0,
                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return was + (int)a.word + (int)b.word;
}

// CHECK-LABEL: define{{.*}} i32 @escaping_local(
// CHECK: call i64 @__dsm_atomic_rmw_4(
// CHECK: call void @publish(
// CHECK: call i64 @__dsm_atomic_load_4(
// CHECK: ret i32
int escaping_local(void)
{
    int count = 0;
    __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);
    publish(&count);
    return __atomic_load_n(&count, __ATOMIC_ACQUIRE);
}

// CHECK-LABEL: define{{.*}} void @stored_local(
// CHECK: call void @__dsm_atomic_store_4(i8* {{.*}}, i64 {{.*}}, i32 3)
// CHECK: ret void
void stored_local(void)
{
    int flag;
    published = &flag;
    __atomic_store_n(&flag, 7, __ATOMIC_RELEASE);
}

// CHECK-LABEL: define{{.*}} i32 @local_or_global(
// CHECK: call i64 @__dsm_atomic_rmw_4(
// CHECK: ret i32
int local_or_global(int pick)
{
    int mine = 0;
    int *p = pick ? &mine : &shared_word;
    __atomic_fetch_sub(p, 1, __ATOMIC_RELAXED);
    return mine;
}

// CHECK-LABEL: define{{.*}} i32 @thread_local_word(
// CHECK: call i64 @__dsm_atomic_rmw_4(i8* {{.*}}@per_thread{{.*}}, i64 {{.*}}, i32 1, i32 5)
// CHECK: ret i32
int thread_local_word(void)
{
    return __atomic_add_fetch(&per_thread, 1, __ATOMIC_SEQ_CST);
}

// A local long double: clang calls libatomic with the local's address,
// which captures it, so the call goes to the runtime's twin.
// CHECK-LABEL: define{{.*}} void @local_long_double(
// CHECK: call void @__dsm_libatomic_store(i64 noundef 16,
// CHECK: ret void
void local_long_double(long double v)
{
    long double x;
    __atomic_store(&x, &v, __ATOMIC_SEQ_CST);
}
