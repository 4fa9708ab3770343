/*
 * shim_cancel.c - cancellation in the libomp ABI: __kmpc_cancel,
 * __kmpc_cancellationpoint and __kmpc_cancel_barrier, with libomp's
 * construct kinds (1 parallel, 2 for, 3 sections, 4 taskgroup).  With
 * cancel-var false (OMP_CANCELLATION unset or false) cancel and
 * cancellation points do nothing and the cancellation barrier is a plain
 * barrier, as the specification says.
 *
 * What clang 14 does with the answers: a cancel or cancellation point
 * that returns non-zero branches to the construct's end (a task returns);
 * a parallel region's canceller, and a thread at a cancellation point of
 * the region, call __kmpc_cancel_barrier on the way out; inside a region
 * that has a cancel parallel, every barrier (explicit, or ending a
 * work-sharing construct) is __kmpc_cancel_barrier, and its non-zero
 * answer means "go to the region's end".
 *
 * Layer: compiler-shim.  Application threads.
 */
#include "forkjoin.h"
#include "shim_kmp.h"

SHIM_EXPORT kmp_int32 __kmpc_cancel(ident_t *loc, kmp_int32 gtid,
                                    kmp_int32 kind);
SHIM_EXPORT kmp_int32 __kmpc_cancellationpoint(ident_t *loc, kmp_int32 gtid,
                                               kmp_int32 kind);
SHIM_EXPORT kmp_int32 __kmpc_cancel_barrier(ident_t *loc, kmp_int32 gtid);

kmp_int32 __kmpc_cancel(ident_t *loc, kmp_int32 gtid, kmp_int32 kind)
{
    return fj_cancel(kind);
}

kmp_int32 __kmpc_cancellationpoint(ident_t *loc, kmp_int32 gtid,
                                   kmp_int32 kind)
{
    return fj_cancellation_point(kind);
}

kmp_int32 __kmpc_cancel_barrier(ident_t *loc, kmp_int32 gtid)
{
    return fj_cancel_barrier();
}
