/*
 * shim_sync.c - synchronisation constructs in the libomp ABI: barrier,
 * single (with copyprivate), master, masked, critical (named, unnamed,
 * with hint), ordered and flush.  Critical sections and ordered sections
 * are cluster-wide; master and masked select by team thread number.
 *
 * Layer: compiler-shim.  Application threads.
 */
#include "forkjoin.h"
#include "shim_kmp.h"

SHIM_EXPORT void __kmpc_barrier(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT kmp_int32 __kmpc_single(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void __kmpc_end_single(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void __kmpc_copyprivate(ident_t *loc, kmp_int32 gtid,
                                    size_t cpy_size, void *cpy_data,
                                    void (*cpy_func)(void *, void *),
                                    kmp_int32 didit);
SHIM_EXPORT kmp_int32 __kmpc_master(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void __kmpc_end_master(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT kmp_int32 __kmpc_masked(ident_t *loc, kmp_int32 gtid,
                                    kmp_int32 filter);
SHIM_EXPORT void __kmpc_end_masked(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void __kmpc_critical(ident_t *loc, kmp_int32 gtid,
                                 kmp_critical_name *crit);
SHIM_EXPORT void __kmpc_critical_with_hint(ident_t *loc, kmp_int32 gtid,
                                           kmp_critical_name *crit,
                                           kmp_uint32 hint);
SHIM_EXPORT void __kmpc_end_critical(ident_t *loc, kmp_int32 gtid,
                                     kmp_critical_name *crit);
SHIM_EXPORT void __kmpc_ordered(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void __kmpc_end_ordered(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void __kmpc_flush(ident_t *loc);

/* The call site names the barrier construct: clang shares one ident among
 * the constructs of a function that have the same flags. */
void __kmpc_barrier(ident_t *loc, kmp_int32 gtid)
{
    fj_barrier_at(__builtin_return_address(0));
}

kmp_int32 __kmpc_single(ident_t *loc, kmp_int32 gtid)
{
    return fj_single_begin();
}

/* The construct's barrier, when it has one, is a separate call. */
void __kmpc_end_single(ident_t *loc, kmp_int32 gtid) {}

void __kmpc_copyprivate(ident_t *loc, kmp_int32 gtid, size_t cpy_size,
                        void *cpy_data, void (*cpy_func)(void *, void *),
                        kmp_int32 didit)
{
    fj_copyprivate(cpy_data, cpy_size, cpy_func, didit);
}

kmp_int32 __kmpc_master(ident_t *loc, kmp_int32 gtid)
{
    return fj_thread_num() == 0;
}

void __kmpc_end_master(ident_t *loc, kmp_int32 gtid) {}

kmp_int32 __kmpc_masked(ident_t *loc, kmp_int32 gtid, kmp_int32 filter)
{
    return fj_thread_num() == filter;
}

void __kmpc_end_masked(ident_t *loc, kmp_int32 gtid) {}

void __kmpc_critical(ident_t *loc, kmp_int32 gtid, kmp_critical_name *crit)
{
    fj_critical_enter(crit);
}

/* Hints only tune a lock's implementation; the section is the same. */
void __kmpc_critical_with_hint(ident_t *loc, kmp_int32 gtid,
                               kmp_critical_name *crit, kmp_uint32 hint)
{
    fj_critical_enter(crit);
}

void __kmpc_end_critical(ident_t *loc, kmp_int32 gtid,
                         kmp_critical_name *crit)
{
    fj_critical_exit(crit);
}

void __kmpc_ordered(ident_t *loc, kmp_int32 gtid) { fj_ordered_begin(); }
void __kmpc_end_ordered(ident_t *loc, kmp_int32 gtid) { fj_ordered_end(); }

/* Publishes this node's writes (a release); before start-up there is
 * nothing to publish. */
void __kmpc_flush(ident_t *loc) { (void)fj_flush(); }
