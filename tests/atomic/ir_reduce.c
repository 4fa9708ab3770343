/*
 * ir_reduce.c - FileCheck test of the plug-in's reduction rewrite: a
 * reduction whose private copies are fixed-size stack slots calls the
 * sized entry with a constant table of their sizes; one over an array
 * section of a VLA (run-time size, extra list entries) keeps the libomp
 * call, which the runtime serves by its locked path.  Compiled at -O0 and
 * -O2, and with -fsanitize=undefined, whose overflow reports in the
 * combiner of `s' must not change which call is made.
 */

// CHECK-DAG: [[FIXED:@.dsm.reduce.sizes[.0-9]*]] = private unnamed_addr constant [2 x i64] [i64 4, i64 8]
// CHECK-DAG: [[ARRAY:@.dsm.reduce.sizes[.0-9]*]] = private unnamed_addr constant [1 x i64] [i64 24]

int region_sum(const int *v, int n)
{
    int s = 0;
    double d = 0;
#pragma omp parallel for reduction(+ : s, d)
    for (int i = 0; i < n; i++) {
        s += v[i];
        d += v[i] * 0.5;
    }
    return s + (int)d;
}

long in_region(const long *v, int n)
{
    long w[3] = {0, 0, 0};
#pragma omp parallel
    {
#pragma omp for reduction(max : w)
        for (int i = 0; i < n; i++)
            w[i % 3] = v[i] > w[i % 3] ? v[i] : w[i % 3];
    }
    return w[0] + w[1] + w[2];
}

long section(const long *v, int n, int m)
{
    long vla[m];
    for (int k = 0; k < m; k++)
        vla[k] = 0;
#pragma omp parallel for reduction(+ : vla[0:m])
    for (int i = 0; i < n; i++)
        vla[i % m] += v[i];
    return vla[0];
}

// CHECK-LABEL: define internal void @.omp_outlined.(
// CHECK: call i32 @__dsm_reduce_nowait_sized({{.*}}, i64 16, {{.*}} [[FIXED]], i64 0, i64 0))
// CHECK-NOT: call i32 @__kmpc_reduce
// CHECK-LABEL: define internal void @.omp_outlined..{{[0-9]+}}(
// CHECK: call i32 @__dsm_reduce_sized({{.*}}, i64 8, {{.*}} [[ARRAY]], i64 0, i64 0))
// CHECK-NOT: call i32 @__kmpc_reduce
// CHECK-LABEL: define internal void @.omp_outlined..{{[0-9]+}}(
// CHECK-NOT: call i32 @__dsm_reduce
// CHECK: call i32 @__kmpc_reduce_nowait(
