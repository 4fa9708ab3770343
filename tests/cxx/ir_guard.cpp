// ir_guard.cpp - the atomics plug-in on C++ code: the acquire load of a
// function-local static's guard byte stays a native load (the runtime's
// guard functions never set that byte during a job: it only decides
// whether they are called), while std::atomic's operations on the same
// kind of memory become runtime calls.
//
// Test input (suite 'cxx', checked by tests/atomic/check_ir.sh with
// FileCheck): compiled by clang++ -fopenmp with the plug-in.
#include <atomic>

struct thing {
    thing();
    int v;
};

// CHECK-LABEL: define{{.*}}@_Z3usev(
// CHECK: load atomic i8, i8* bitcast (i64* @_ZGVZ3usevE1t to i8*) acquire
// CHECK: call{{.*}}@__cxa_guard_acquire
// CHECK-NOT: __dsm_atomic_load
// CHECK: ret
int use()
{
    static thing t;
    return t.v;
}

std::atomic<int> counter;

// CHECK-LABEL: define{{.*}}@_Z4bumpv(
// CHECK: call{{.*}}@__dsm_atomic_rmw_4
// CHECK-NOT: atomicrmw
// CHECK: ret
int bump() { return counter.fetch_add(1); }
