/*
 * shim_unsupported.c - libomp entry points clang 14 emits for constructs
 * dsmomp does not support.  Exporting them turns what would be a link
 * error (or, with a partial implementation, a wrong answer) into a run-time
 * end of the job with "dsmomp: <construct> is not supported (in FUNCTION,
 * FILE:LINE): what to do instead" (shim_location.c).
 *
 * Cancellation is the exception that is not an error by itself: with the
 * cancel-var ICV false (OMP_CANCELLATION unset or false, libomp's default)
 * the specification makes cancel and cancellation points do nothing, and
 * a cancellation barrier is a plain barrier.  Asking for cancellation with
 * OMP_CANCELLATION=true ends the job at the first cancel construct.
 *
 * Layer: compiler-shim.  Application threads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base_log.h"
#include "forkjoin.h"
#include "shim_kmp.h"
#include "shim_location.h"

/* End the job naming the construct and where the program meets it: the
 * function (from the entry point's return address when the program has no
 * debug information) and file:line (with -g). */
__attribute__((noreturn)) static void unsupported_at(const char *construct,
                                                     const ident_t *loc,
                                                     const void *caller,
                                                     const char *why)
{
    char where[1024];
    dsm_fatal("dsmomp: %s is not supported (%s): %s", construct,
              shim_location(loc, caller, where, sizeof where), why);
}

/* In every entry point below: the caller is the construct's code. */
#define unsupported(construct, loc, why)                                      \
    unsupported_at(construct, loc, __builtin_return_address(0), why)
/* ---- cancellation -------------------------------------------------------- */

SHIM_EXPORT kmp_int32 __kmpc_cancel(ident_t *loc, kmp_int32 gtid,
                                    kmp_int32 kind);
SHIM_EXPORT kmp_int32 __kmpc_cancellationpoint(ident_t *loc, kmp_int32 gtid,
                                               kmp_int32 kind);
SHIM_EXPORT kmp_int32 __kmpc_cancel_barrier(ident_t *loc, kmp_int32 gtid);

static int cancellation_requested(void)
{
    const char *v = getenv("OMP_CANCELLATION");
    return v && (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0);
}

kmp_int32 __kmpc_cancel(ident_t *loc, kmp_int32 gtid, kmp_int32 kind)
{
    if (cancellation_requested())
        unsupported("cancellation (OMP_CANCELLATION=true)", loc,
                    "a cancelled region would have to stop every node");
    return 0;   /* cancel-var is false: the construct does nothing */
}

kmp_int32 __kmpc_cancellationpoint(ident_t *loc, kmp_int32 gtid,
                                   kmp_int32 kind)
{
    if (cancellation_requested())
        unsupported("cancellation (OMP_CANCELLATION=true)", loc,
                    "a cancelled region would have to stop every node");
    return 0;
}

kmp_int32 __kmpc_cancel_barrier(ident_t *loc, kmp_int32 gtid)
{
    fj_barrier();
    return 0;   /* nothing was cancelled */
}

/* ---- doacross loops: ordered(n) with depend(sink) and depend(source) --- */

SHIM_EXPORT void __kmpc_doacross_init(ident_t *loc, kmp_int32 gtid,
                                      kmp_int32 num_dims, const void *dims);
SHIM_EXPORT void __kmpc_doacross_wait(ident_t *loc, kmp_int32 gtid,
                                      const kmp_int64 *vec);
SHIM_EXPORT void __kmpc_doacross_post(ident_t *loc, kmp_int32 gtid,
                                      const kmp_int64 *vec);
SHIM_EXPORT void __kmpc_doacross_fini(ident_t *loc, kmp_int32 gtid);

static const char doacross_why[] =
    "use an ordered loop (ordered clause without a parameter)";

void __kmpc_doacross_init(ident_t *loc, kmp_int32 gtid, kmp_int32 num_dims,
                          const void *dims)
{
    unsupported("doacross loop (ordered depend)", loc, doacross_why);
}

void __kmpc_doacross_wait(ident_t *loc, kmp_int32 gtid, const kmp_int64 *vec)
{
    unsupported("doacross loop (ordered depend)", loc, doacross_why);
}

void __kmpc_doacross_post(ident_t *loc, kmp_int32 gtid, const kmp_int64 *vec)
{
    unsupported("doacross loop (ordered depend)", loc, doacross_why);
}

void __kmpc_doacross_fini(ident_t *loc, kmp_int32 gtid)
{
    unsupported("doacross loop (ordered depend)", loc, doacross_why);
}

/* ---- threadprivate arrays registered element by element ------------------ */

/* clang registers threadprivate objects with __kmpc_threadprivate_register
 * (shim_threadprivate.c), arrays of objects included; only other
 * compilers call the vector form. */
SHIM_EXPORT void __kmpc_threadprivate_register_vec(ident_t *loc, void *data,
                                                   void *ctor, void *cctor,
                                                   void *dtor,
                                                   size_t vector_length);

void __kmpc_threadprivate_register_vec(ident_t *loc, void *data, void *ctor,
                                       void *cctor, void *dtor,
                                       size_t vector_length)
{
    unsupported("threadprivate registered as a vector "
                "(__kmpc_threadprivate_register_vec)", loc,
                "build the program with clang (dsmcc, dsmc++)");
}

/* ---- teams (host teams, target without offloading) ---------------------- */

SHIM_EXPORT void __kmpc_fork_teams(ident_t *loc, kmp_int32 argc,
                                   kmpc_micro microtask, ...);
SHIM_EXPORT void __kmpc_push_num_teams(ident_t *loc, kmp_int32 gtid,
                                       kmp_int32 num_teams,
                                       kmp_int32 num_threads);

void __kmpc_fork_teams(ident_t *loc, kmp_int32 argc, kmpc_micro microtask,
                       ...)
{
    unsupported("teams", loc, "one team spans the cluster already");
}

void __kmpc_push_num_teams(ident_t *loc, kmp_int32 gtid, kmp_int32 num_teams,
                           kmp_int32 num_threads)
{
    unsupported("teams", loc, "one team spans the cluster already");
}

/* distribute loops: only inside teams, which ends the job first; the
 * entries exist so that such a program links. */
static const char distribute_why[] = "one team spans the cluster already; "
                                     "use a work-sharing loop";

#define DISTRIBUTE(name, params)                                              \
    SHIM_EXPORT void name params;                                             \
    void name params                                                          \
    {                                                                         \
        unsupported("distribute (teams)", loc, distribute_why);               \
    }
DISTRIBUTE(__kmpc_dist_for_static_init_4, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 sched, kmp_int32 *last, kmp_int32 *lower, kmp_int32 *upper,
    kmp_int32 *upper_dist, kmp_int32 *stride, kmp_int32 incr,
    kmp_int32 chunk))
DISTRIBUTE(__kmpc_dist_for_static_init_4u, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 sched, kmp_int32 *last, kmp_uint32 *lower, kmp_uint32 *upper,
    kmp_uint32 *upper_dist, kmp_int32 *stride, kmp_int32 incr,
    kmp_int32 chunk))
DISTRIBUTE(__kmpc_dist_for_static_init_8, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 sched, kmp_int32 *last, kmp_int64 *lower, kmp_int64 *upper,
    kmp_int64 *upper_dist, kmp_int64 *stride, kmp_int64 incr,
    kmp_int64 chunk))
DISTRIBUTE(__kmpc_dist_for_static_init_8u, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 sched, kmp_int32 *last, kmp_uint64 *lower, kmp_uint64 *upper,
    kmp_uint64 *upper_dist, kmp_int64 *stride, kmp_int64 incr,
    kmp_int64 chunk))
DISTRIBUTE(__kmpc_dist_dispatch_init_4, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 sched, kmp_int32 *last, kmp_int32 lower, kmp_int32 upper,
    kmp_int32 stride, kmp_int32 chunk))
DISTRIBUTE(__kmpc_dist_dispatch_init_4u, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 sched, kmp_int32 *last, kmp_uint32 lower, kmp_uint32 upper,
    kmp_int32 stride, kmp_int32 chunk))
DISTRIBUTE(__kmpc_dist_dispatch_init_8, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 sched, kmp_int32 *last, kmp_int64 lower, kmp_int64 upper,
    kmp_int64 stride, kmp_int64 chunk))
DISTRIBUTE(__kmpc_dist_dispatch_init_8u, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 sched, kmp_int32 *last, kmp_uint64 lower, kmp_uint64 upper,
    kmp_int64 stride, kmp_int64 chunk))
DISTRIBUTE(__kmpc_team_static_init_4, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 *last, kmp_int32 *lower, kmp_int32 *upper, kmp_int32 *stride,
    kmp_int32 incr, kmp_int32 chunk))
DISTRIBUTE(__kmpc_team_static_init_4u, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 *last, kmp_uint32 *lower, kmp_uint32 *upper,
    kmp_int32 *stride, kmp_int32 incr, kmp_int32 chunk))
DISTRIBUTE(__kmpc_team_static_init_8, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 *last, kmp_int64 *lower, kmp_int64 *upper, kmp_int64 *stride,
    kmp_int64 incr, kmp_int64 chunk))
DISTRIBUTE(__kmpc_team_static_init_8u, (ident_t *loc, kmp_int32 gtid,
    kmp_int32 *last, kmp_uint64 *lower, kmp_uint64 *upper,
    kmp_int64 *stride, kmp_int64 incr, kmp_int64 chunk))
