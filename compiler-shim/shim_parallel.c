/*
 * shim_parallel.c - parallel regions and thread identity in the libomp
 * ABI: __kmpc_fork_call, __kmpc_push_num_threads, the serialised-region
 * pair, teams (__kmpc_fork_teams, __kmpc_push_num_teams),
 * __kmpc_global_thread_num and the small queries clang may call.
 *
 * Layer: compiler-shim.  Application threads (the program's code).
 */
#include <stdarg.h>

#include "base_log.h"
#include "forkjoin.h"
#include "shim_kmp.h"
#include "shim_location.h"

SHIM_EXPORT void __kmpc_fork_call(ident_t *loc, kmp_int32 argc,
                                  kmpc_micro microtask, ...);
SHIM_EXPORT void __kmpc_push_num_threads(ident_t *loc, kmp_int32 gtid,
                                         kmp_int32 num_threads);
SHIM_EXPORT void __kmpc_fork_teams(ident_t *loc, kmp_int32 argc,
                                   kmpc_micro microtask, ...);
SHIM_EXPORT void __kmpc_push_num_teams(ident_t *loc, kmp_int32 gtid,
                                       kmp_int32 num_teams,
                                       kmp_int32 num_threads);
SHIM_EXPORT void __kmpc_serialized_parallel(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void __kmpc_end_serialized_parallel(ident_t *loc,
                                                kmp_int32 gtid);
SHIM_EXPORT kmp_int32 __kmpc_global_thread_num(ident_t *loc);
SHIM_EXPORT kmp_int32 __kmpc_global_num_threads(ident_t *loc);
SHIM_EXPORT kmp_int32 __kmpc_bound_thread_num(ident_t *loc);
SHIM_EXPORT kmp_int32 __kmpc_bound_num_threads(ident_t *loc);
SHIM_EXPORT kmp_int32 __kmpc_in_parallel(ident_t *loc);
SHIM_EXPORT kmp_int32 __kmpc_ok_to_fork(ident_t *loc);
SHIM_EXPORT void __kmpc_push_proc_bind(ident_t *loc, kmp_int32 gtid,
                                       int proc_bind);
SHIM_EXPORT void __kmpc_begin(ident_t *loc, kmp_int32 flags);
SHIM_EXPORT void __kmpc_end(ident_t *loc);

/* The captured variables a fork passes after the microtask (at most
 * FJ_MAX_ARGS are read: fj_fork and fj_teams refuse more with a message). */
static void take_args(kmp_int32 argc, va_list ap, void *args[FJ_MAX_ARGS])
{
    int n = argc < FJ_MAX_ARGS ? argc : FJ_MAX_ARGS;
    for (int i = 0; i < n; i++)
        args[i] = va_arg(ap, void *);
}

void __kmpc_fork_call(ident_t *loc, kmp_int32 argc, kmpc_micro microtask,
                      ...)
{
    void *args[FJ_MAX_ARGS];
    va_list ap;
    va_start(ap, microtask);
    take_args(argc, ap, args);
    va_end(ap);
    fj_fork(shim_where(loc), (fj_microtask_t)microtask, argc, args);
}

void __kmpc_push_num_threads(ident_t *loc, kmp_int32 gtid,
                             kmp_int32 num_threads)
{
    fj_push_num_threads(num_threads);
}

/* num_teams and thread_limit of this thread's next teams construct (0:
 * no clause) */
static __thread int pushed_num_teams, pushed_teams_thread_limit;

void __kmpc_push_num_teams(ident_t *loc, kmp_int32 gtid, kmp_int32 num_teams,
                           kmp_int32 num_threads)
{
    pushed_num_teams = num_teams;
    pushed_teams_thread_limit = num_threads;
}

void __kmpc_fork_teams(ident_t *loc, kmp_int32 argc, kmpc_micro microtask,
                       ...)
{
    void *args[FJ_MAX_ARGS];
    va_list ap;
    va_start(ap, microtask);
    take_args(argc, ap, args);
    va_end(ap);
    int num_teams = pushed_num_teams, limit = pushed_teams_thread_limit;
    pushed_num_teams = pushed_teams_thread_limit = 0;
    if (fj_level() > 0) {
        char where[1024];
        dsm_fatal("dsmomp: teams inside a parallel region is not supported "
                  "(%s): the specification allows teams only outside "
                  "parallel regions",
                  shim_location(loc, __builtin_return_address(0), where,
                                sizeof where));
    }
    fj_teams(shim_where(loc), num_teams, limit, (fj_microtask_t)microtask,
             argc, args);
}

void __kmpc_serialized_parallel(ident_t *loc, kmp_int32 gtid)
{
    fj_serialized_begin();
}

void __kmpc_end_serialized_parallel(ident_t *loc, kmp_int32 gtid)
{
    fj_serialized_end();
}

kmp_int32 __kmpc_global_thread_num(ident_t *loc) { return fj_gtid(); }
kmp_int32 __kmpc_global_num_threads(ident_t *loc)
{
    return fj_total_threads();
}
kmp_int32 __kmpc_bound_thread_num(ident_t *loc) { return fj_thread_num(); }
kmp_int32 __kmpc_bound_num_threads(ident_t *loc) { return fj_num_threads(); }
kmp_int32 __kmpc_in_parallel(ident_t *loc) { return fj_active_level() > 0; }
kmp_int32 __kmpc_ok_to_fork(ident_t *loc) { return 1; }
/* The runtime starts in __wrap_main and ends at exit. */
void __kmpc_begin(ident_t *loc, kmp_int32 flags) {}
void __kmpc_end(ident_t *loc) {}

/* proc_bind is a placement hint: dsmomp does not bind threads to places,
 * which the specification allows. */
void __kmpc_push_proc_bind(ident_t *loc, kmp_int32 gtid, int proc_bind) {}
