// ir_udr.cpp - which reductions the atomics plug-in sends to node 0 as
// bytes (the sized entries): a plain reduction and a user-defined one
// over a struct of two doubles, whose combiner finds everything in the
// private copies' bytes, are sized; a user-defined reduction over a
// std::vector, whose combiner follows the vector's pointer to elements
// another node allocated, keeps the locked path (__kmpc_reduce_nowait).
//
// Test input (suite 'cxx', checked by tests/atomic/check_ir.sh with
// FileCheck): compiled by clang++ -fopenmp -O2 with the plug-in.
#include <algorithm>
#include <functional>
#include <vector>

struct pair {
    double lo, hi;
};

#pragma omp declare reduction(widen : pair : omp_out.lo = std::min(omp_out.lo, omp_in.lo), omp_out.hi = std::max(omp_out.hi, omp_in.hi)) initializer(omp_priv = omp_orig)

#pragma omp declare reduction(vplus : std::vector<long> : std::transform(omp_out.begin(), omp_out.end(), omp_in.begin(), omp_out.begin(), std::plus<long>())) initializer(omp_priv = std::vector<long>(omp_orig.size(), 0))

// CHECK-LABEL: define{{.*}}@_Z3sumPKdi(
// CHECK-LABEL: define internal void @.omp_outlined.(
// CHECK: call i32 @__dsm_reduce_nowait_sized(
double sum(const double *x, int n)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

// CHECK-LABEL: define{{.*}}@_Z5rangePKdi(
// CHECK-LABEL: define internal void @.omp_outlined..{{[0-9]+}}(
// CHECK: call i32 @__dsm_reduce_nowait_sized(
pair range(const double *x, int n)
{
    pair r = {x[0], x[0]};
#pragma omp parallel for reduction(widen : r)
    for (int i = 0; i < n; i++) {
        r.lo = std::min(r.lo, x[i]);
        r.hi = std::max(r.hi, x[i]);
    }
    return r;
}

// CHECK-LABEL: define{{.*}}@_Z9histogramPKii(
// CHECK-LABEL: define internal void @.omp_outlined..{{[0-9]+}}(
// CHECK-NOT: __dsm_reduce
// CHECK: call i32 @__kmpc_reduce_nowait(
std::vector<long> histogram(const int *x, int n)
{
    std::vector<long> h(16, 0);
#pragma omp parallel for reduction(vplus : h)
    for (int i = 0; i < n; i++)
        h[x[i] & 15]++;
    return h;
}
