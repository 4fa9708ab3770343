/*
 * shim_reduce.c - reductions in the libomp ABI.  Never returns 2 (inline
 * atomics on the original would bypass the DSM): one thread per node gets
 * 1 and combines under a cluster lock, the others get 0.
 *
 * The blocking and nowait forms behave the same here: for a construct
 * without nowait, clang 14 emits the construct's barrier itself after
 * __kmpc_end_reduce, and that barrier publishes the result.
 *
 * Layer: compiler-shim.  Application threads.
 */
#include "forkjoin.h"
#include "shim_kmp.h"

SHIM_EXPORT kmp_int32 __kmpc_reduce_nowait(
    ident_t *loc, kmp_int32 gtid, kmp_int32 num_vars, size_t reduce_size,
    void *reduce_data, void (*reduce_func)(void *lhs, void *rhs),
    kmp_critical_name *lck);
SHIM_EXPORT void __kmpc_end_reduce_nowait(ident_t *loc, kmp_int32 gtid,
                                          kmp_critical_name *lck);
SHIM_EXPORT kmp_int32 __kmpc_reduce(
    ident_t *loc, kmp_int32 gtid, kmp_int32 num_vars, size_t reduce_size,
    void *reduce_data, void (*reduce_func)(void *lhs, void *rhs),
    kmp_critical_name *lck);
SHIM_EXPORT void __kmpc_end_reduce(ident_t *loc, kmp_int32 gtid,
                                   kmp_critical_name *lck);

kmp_int32 __kmpc_reduce_nowait(ident_t *loc, kmp_int32 gtid,
                               kmp_int32 num_vars, size_t reduce_size,
                               void *reduce_data,
                               void (*reduce_func)(void *lhs, void *rhs),
                               kmp_critical_name *lck)
{
    return fj_reduce_begin(reduce_data, reduce_func, lck);
}

void __kmpc_end_reduce_nowait(ident_t *loc, kmp_int32 gtid,
                              kmp_critical_name *lck)
{
    fj_reduce_end(lck);
}

kmp_int32 __kmpc_reduce(ident_t *loc, kmp_int32 gtid, kmp_int32 num_vars,
                        size_t reduce_size, void *reduce_data,
                        void (*reduce_func)(void *lhs, void *rhs),
                        kmp_critical_name *lck)
{
    return fj_reduce_begin(reduce_data, reduce_func, lck);
}

void __kmpc_end_reduce(ident_t *loc, kmp_int32 gtid, kmp_critical_name *lck)
{
    fj_reduce_end(lck);
}
