/*
 * shim_unsupported.c - libomp entry points clang 14 emits for constructs
 * dsmomp does not support.  Exporting them turns what would be a link
 * error (or, with a partial implementation, a wrong answer) into a run-time
 * end of the job with "dsmomp: <construct> is not supported", naming the
 * source location.
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

__attribute__((noreturn)) static void unsupported(const char *construct,
                                                  const ident_t *loc,
                                                  const char *why)
{
    dsm_fatal("dsmomp: %s is not supported (at %s): %s", construct,
              shim_where(loc), why);
}

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

/* ---- threadprivate with constructors (C++) --------------------------- */

SHIM_EXPORT void __kmpc_threadprivate_register(ident_t *loc, void *data,
                                               void *ctor, void *cctor,
                                               void *dtor);
SHIM_EXPORT void __kmpc_threadprivate_register_vec(ident_t *loc, void *data,
                                                   void *ctor, void *cctor,
                                                   void *dtor,
                                                   size_t vector_length);

void __kmpc_threadprivate_register(ident_t *loc, void *data, void *ctor,
                                   void *cctor, void *dtor)
{
    unsupported("threadprivate with constructors or destructors", loc,
                "dsmomp supports C programs only");
}

void __kmpc_threadprivate_register_vec(ident_t *loc, void *data, void *ctor,
                                       void *cctor, void *dtor,
                                       size_t vector_length)
{
    unsupported("threadprivate with constructors or destructors", loc,
                "dsmomp supports C programs only");
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

/* ---- OpenMP memory allocators ------------------------------------------ */

SHIM_EXPORT void *omp_alloc(size_t size, void *allocator);
SHIM_EXPORT void *omp_aligned_alloc(size_t alignment, size_t size,
                                    void *allocator);
SHIM_EXPORT void *omp_calloc(size_t count, size_t size, void *allocator);
SHIM_EXPORT void *omp_realloc(void *ptr, size_t size, void *allocator,
                              void *free_allocator);
SHIM_EXPORT void omp_free(void *ptr, void *allocator);

/* The predefined allocator handles omp.h declares, so that a program
 * naming them links and reaches the message below. */
#define ALLOCATOR(name, value) SHIM_EXPORT const uintptr_t name = value;
ALLOCATOR(omp_null_allocator, 0)
ALLOCATOR(omp_default_mem_alloc, 1)
ALLOCATOR(omp_large_cap_mem_alloc, 2)
ALLOCATOR(omp_const_mem_alloc, 3)
ALLOCATOR(omp_high_bw_mem_alloc, 4)
ALLOCATOR(omp_low_lat_mem_alloc, 5)
ALLOCATOR(omp_cgroup_mem_alloc, 6)
ALLOCATOR(omp_pteam_mem_alloc, 7)
ALLOCATOR(omp_thread_mem_alloc, 8)

static const char alloc_why[] =
    "use malloc, which dsmcc makes sharable";

void *omp_alloc(size_t size, void *allocator)
{
    unsupported("omp_alloc (memory allocators)", NULL, alloc_why);
}

void *omp_aligned_alloc(size_t alignment, size_t size, void *allocator)
{
    unsupported("omp_aligned_alloc (memory allocators)", NULL, alloc_why);
}

void *omp_calloc(size_t count, size_t size, void *allocator)
{
    unsupported("omp_calloc (memory allocators)", NULL, alloc_why);
}

void *omp_realloc(void *ptr, size_t size, void *allocator,
                  void *free_allocator)
{
    unsupported("omp_realloc (memory allocators)", NULL, alloc_why);
}

void omp_free(void *ptr, void *allocator)
{
    unsupported("omp_free (memory allocators)", NULL, alloc_why);
}
