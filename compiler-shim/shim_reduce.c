/*
 * shim_reduce.c - reductions in the libomp ABI.  Never returns 2 (inline
 * atomics on the original would bypass the DSM).
 *
 * __kmpc_reduce{,_nowait}: the sizes of the variables are unknown, so one
 * thread per node gets 1 and combines under a cluster lock (fj_reduce.c).
 * __dsm_reduce{,_nowait}_sized: what dsmcc's plug-in calls instead when it
 * could read the variables' sizes at compile time (compiler-shim/atomic/
 * atomic_abi.h); the other nodes then send their partial results to node
 * 0, whose thread alone gets 1.
 *
 * The blocking and nowait forms behave the same here: for a construct
 * without nowait, clang 14 emits the construct's barrier itself after
 * __kmpc_end_reduce, and that barrier publishes the result (libomp's
 * blocking form holds the threads that get 0 until the combining is done;
 * here they wait in that barrier instead, which node 0's combining thread
 * reaches only after writing the original).
 *
 * Layer: compiler-shim.  Application threads.
 */
#include <stdint.h>

#include "forkjoin.h"
#include "shim_kmp.h"

typedef void (*reduce_fn)(void *lhs, void *rhs);

SHIM_EXPORT kmp_int32 __kmpc_reduce_nowait(
    ident_t *loc, kmp_int32 gtid, kmp_int32 num_vars, size_t reduce_size,
    void *reduce_data, reduce_fn reduce_func, kmp_critical_name *lck);
SHIM_EXPORT void __kmpc_end_reduce_nowait(ident_t *loc, kmp_int32 gtid,
                                          kmp_critical_name *lck);
SHIM_EXPORT kmp_int32 __kmpc_reduce(
    ident_t *loc, kmp_int32 gtid, kmp_int32 num_vars, size_t reduce_size,
    void *reduce_data, reduce_fn reduce_func, kmp_critical_name *lck);
SHIM_EXPORT void __kmpc_end_reduce(ident_t *loc, kmp_int32 gtid,
                                   kmp_critical_name *lck);
SHIM_EXPORT kmp_int32 __dsm_reduce_nowait_sized(
    ident_t *loc, kmp_int32 gtid, kmp_int32 num_vars, size_t reduce_size,
    void *reduce_data, reduce_fn reduce_func, kmp_critical_name *lck,
    const uint64_t *sizes);
SHIM_EXPORT kmp_int32 __dsm_reduce_sized(
    ident_t *loc, kmp_int32 gtid, kmp_int32 num_vars, size_t reduce_size,
    void *reduce_data, reduce_fn reduce_func, kmp_critical_name *lck,
    const uint64_t *sizes);

kmp_int32 __kmpc_reduce_nowait(ident_t *loc, kmp_int32 gtid,
                               kmp_int32 num_vars, size_t reduce_size,
                               void *reduce_data, reduce_fn reduce_func,
                               kmp_critical_name *lck)
{
    return fj_reduce_begin(reduce_data, reduce_func, lck, num_vars, NULL);
}

void __kmpc_end_reduce_nowait(ident_t *loc, kmp_int32 gtid,
                              kmp_critical_name *lck)
{
    fj_reduce_end(lck);
}

kmp_int32 __kmpc_reduce(ident_t *loc, kmp_int32 gtid, kmp_int32 num_vars,
                        size_t reduce_size, void *reduce_data,
                        reduce_fn reduce_func, kmp_critical_name *lck)
{
    return fj_reduce_begin(reduce_data, reduce_func, lck, num_vars, NULL);
}

void __kmpc_end_reduce(ident_t *loc, kmp_int32 gtid, kmp_critical_name *lck)
{
    fj_reduce_end(lck);
}

kmp_int32 __dsm_reduce_nowait_sized(ident_t *loc, kmp_int32 gtid,
                                    kmp_int32 num_vars, size_t reduce_size,
                                    void *reduce_data, reduce_fn reduce_func,
                                    kmp_critical_name *lck,
                                    const uint64_t *sizes)
{
    return fj_reduce_begin(reduce_data, reduce_func, lck, num_vars, sizes);
}

kmp_int32 __dsm_reduce_sized(ident_t *loc, kmp_int32 gtid,
                             kmp_int32 num_vars, size_t reduce_size,
                             void *reduce_data, reduce_fn reduce_func,
                             kmp_critical_name *lck, const uint64_t *sizes)
{
    return fj_reduce_begin(reduce_data, reduce_func, lck, num_vars, sizes);
}
