/*
 * shim_loop.c - work-sharing loops in the libomp ABI: static schedules
 * (__kmpc_for_static_init_{4,4u,8,8u}, _fini) and scheduled-at-run-time
 * loops (__kmpc_dispatch_{init,next,fini}_{4,4u,8,8u}, _deinit).  Each
 * variant widens its bounds to 64 bits for the fork-join layer and
 * truncates the results back to its type.
 *
 * Layer: compiler-shim.  Application threads.
 */
#include "forkjoin.h"
#include "shim_kmp.h"

#define STATIC_INIT(SUFFIX, T, ST, KIND)                                      \
    SHIM_EXPORT void __kmpc_for_static_init_##SUFFIX(                         \
        ident_t *loc, kmp_int32 gtid, kmp_int32 schedule,                     \
        kmp_int32 *plastiter, T *plower, T *pupper, ST *pstride, ST incr,     \
        ST chunk);                                                            \
    void __kmpc_for_static_init_##SUFFIX(                                     \
        ident_t *loc, kmp_int32 gtid, kmp_int32 schedule,                     \
        kmp_int32 *plastiter, T *plower, T *pupper, ST *pstride, ST incr,     \
        ST chunk)                                                             \
    {                                                                         \
        int64_t lower = (int64_t)*plower, upper = (int64_t)*pupper;          \
        int64_t stride = 0;                                                   \
        int32_t last = 0;                                                     \
        fj_static_init(schedule, KIND, &last, &lower, &upper, &stride,       \
                       (int64_t)incr, (int64_t)chunk);                        \
        *plower = (T)lower;                                                   \
        *pupper = (T)upper;                                                   \
        *pstride = (ST)stride;                                                \
        if (plastiter)                                                        \
            *plastiter = last;                                                \
    }

#define DISPATCH(SUFFIX, T, ST, KIND)                                         \
    SHIM_EXPORT void __kmpc_dispatch_init_##SUFFIX(                           \
        ident_t *loc, kmp_int32 gtid, kmp_int32 schedule, T lb, T ub, ST st,  \
        ST chunk);                                                            \
    void __kmpc_dispatch_init_##SUFFIX(ident_t *loc, kmp_int32 gtid,          \
                                       kmp_int32 schedule, T lb, T ub, ST st, \
                                       ST chunk)                              \
    {                                                                         \
        fj_dispatch_init(schedule, KIND, (int64_t)lb, (int64_t)ub,            \
                         (int64_t)st, (int64_t)chunk);                        \
    }                                                                         \
    SHIM_EXPORT int __kmpc_dispatch_next_##SUFFIX(                            \
        ident_t *loc, kmp_int32 gtid, kmp_int32 *p_last, T *p_lb, T *p_ub,    \
        ST *p_st);                                                            \
    int __kmpc_dispatch_next_##SUFFIX(ident_t *loc, kmp_int32 gtid,           \
                                      kmp_int32 *p_last, T *p_lb, T *p_ub,    \
                                      ST *p_st)                               \
    {                                                                         \
        int64_t lower, upper, stride;                                         \
        int32_t last;                                                         \
        if (!fj_dispatch_next(&last, &lower, &upper, &stride))                \
            return 0;                                                         \
        *p_lb = (T)lower;                                                     \
        *p_ub = (T)upper;                                                     \
        if (p_st)                                                             \
            *p_st = (ST)stride;                                               \
        if (p_last)                                                           \
            *p_last = last;                                                   \
        return 1;                                                             \
    }                                                                         \
    SHIM_EXPORT void __kmpc_dispatch_fini_##SUFFIX(ident_t *loc,              \
                                                   kmp_int32 gtid);           \
    void __kmpc_dispatch_fini_##SUFFIX(ident_t *loc, kmp_int32 gtid)          \
    {                                                                         \
        fj_dispatch_fini();                                                   \
    }

STATIC_INIT(4, kmp_int32, kmp_int32, FJ_INT32)
STATIC_INIT(4u, kmp_uint32, kmp_int32, FJ_UINT32)
STATIC_INIT(8, kmp_int64, kmp_int64, FJ_INT64)
STATIC_INIT(8u, kmp_uint64, kmp_int64, FJ_UINT64)

DISPATCH(4, kmp_int32, kmp_int32, FJ_INT32)
DISPATCH(4u, kmp_uint32, kmp_int32, FJ_UINT32)
DISPATCH(8, kmp_int64, kmp_int64, FJ_INT64)
DISPATCH(8u, kmp_uint64, kmp_int64, FJ_UINT64)

SHIM_EXPORT void __kmpc_for_static_fini(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void __kmpc_dispatch_deinit(ident_t *loc, kmp_int32 gtid);

/* Static schedules keep no state; a dispatch loop ends when next says so. */
void __kmpc_for_static_fini(ident_t *loc, kmp_int32 gtid) {}
void __kmpc_dispatch_deinit(ident_t *loc, kmp_int32 gtid) {}
