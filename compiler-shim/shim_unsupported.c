/*
 * shim_unsupported.c - libomp entry points clang 14 emits for constructs
 * dsmomp does not support.  Exporting them turns what would be a link
 * error (or, with a partial implementation, a wrong answer) into a run-time
 * end of the job with "dsmomp: <construct> is not supported (in FUNCTION,
 * FILE:LINE): what to do instead" (shim_location.c).
 *
 * Layer: compiler-shim.  Application threads.
 */
#include <stdint.h>
#include <stdlib.h>

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

/* ---- distribute entry points clang 14 does not emit for the host ---------- */

/* clang 14 compiles `distribute` on the host to __kmpc_for_static_init
 * with a distribute schedule (and `distribute parallel for` to that plus a
 * parallel loop); these composite forms come from other compilers and
 * from device code.  They exist so that such a program links and says
 * why it stops. */
static const char distribute_why[] = "build the program with clang 14 "
                                     "(dsmcc), whose distribute loops "
                                     "dsmomp runs";

#define DISTRIBUTE(name, params)                                              \
    SHIM_EXPORT void name params;                                             \
    void name params                                                          \
    {                                                                         \
        unsupported("distribute entry point " #name, loc, distribute_why);    \
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
