/*
 * gomp_unsupported.c - the rest of GCC's ABI: the entries of constructs
 * dsmomp does not support (each ends the job naming the construct and the
 * function that met it), cancellation (nothing is cancelled while
 * OMP_CANCELLATION is unset or false, as the specification says; asking
 * for it ends the job), the error directive, the allocate directive's
 * GOMP_alloc and GOMP_free, and the offload image registration a program
 * compiled for offloading calls from its constructors (no device: ignored,
 * its target regions then end the job).
 *
 * Not supported: the GOMP 1.0 ABI of gcc before 4.9 (GOMP_parallel_start
 * and friends: the encountering thread runs the body between two calls,
 * where forkjoin's fork runs it inside one), doacross loops, task
 * reductions, target and teams constructs.
 *
 * Layer: compiler-shim.  Application threads.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base_log.h"
#include "forkjoin.h"
#include "gomp_abi.h"
#include "shim_location.h"

const char *gomp_location(const void *caller, char *buf, size_t size)
{
    shim_location(NULL, caller, buf, size);
    /* gcc names a region's body f._omp_fn.N, a task's copy function
     * f._omp_cpyfn.N: the user's function is f */
    char *outlined = strstr(buf, "._omp_");
    if (outlined) {
        char *rest = strpbrk(outlined, " ,");
        memmove(outlined, rest ? rest : "", rest ? strlen(rest) + 1 : 1);
    }
    return buf;
}

void gomp_unsupported(const char *construct, const void *caller,
                      const char *why)
{
    char where[1024];
    dsm_fatal("dsmomp: %s is not supported (%s): %s", construct,
              gomp_location(caller, where, sizeof where), why);
}

void gomp_check_loop_start(const char *entry, const void *caller,
                           const void *istart, const uintptr_t *reductions,
                           void *const *mem)
{
    if (reductions)
        gomp_unsupported("reduction(task, ...) on a loop", caller,
                         "dsmomp does not implement GCC's task reductions; "
                         "use a plain reduction clause");
    if (mem)
        gomp_unsupported("lastprivate(conditional:) or reduction(inscan, "
                         "...) on a loop", caller,
                         "use lastprivate, or a reduction and a second "
                         "loop");
    if (!istart) {
        char construct[96];
        snprintf(construct, sizeof construct,
                 "a loop opened without its first chunk (%s with no "
                 "istart)", entry);
        gomp_unsupported(construct, caller, "rebuild with gcc 12");
    }
}

bool gomp_cancellation_requested(void)
{
    const char *v = getenv("OMP_CANCELLATION");
    return v && (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0);
}

/* ---- cancellation -------------------------------------------------------- */

GOMP_EXPORT bool GOMP_cancel(int which, bool do_cancel);
GOMP_EXPORT bool GOMP_cancellation_point(int which);

static const char cancel_why[] =
    "a cancelled region would have to stop every node";

bool GOMP_cancel(int which, bool do_cancel)
{
    (void)which;
    if (do_cancel && gomp_cancellation_requested())
        GOMP_UNSUPPORTED("cancellation (OMP_CANCELLATION=true)", cancel_why);
    return false;   /* cancel-var is false: the construct does nothing */
}

bool GOMP_cancellation_point(int which)
{
    (void)which;
    if (gomp_cancellation_requested())
        GOMP_UNSUPPORTED("cancellation (OMP_CANCELLATION=true)", cancel_why);
    return false;
}

/* ---- the error directive (at execution) ---------------------------------- */

GOMP_EXPORT void GOMP_error(const char *msg, size_t msglen);
GOMP_EXPORT void GOMP_warning(const char *msg, size_t msglen);

/* msglen (size_t)-1: msg ends with a NUL. */
static int message_length(const char *msg, size_t msglen)
{
    if (!msg)
        return 0;
    size_t n = msglen == (size_t)-1 ? strlen(msg) : msglen;
    return n > 4096 ? 4096 : (int)n;
}

void GOMP_error(const char *msg, size_t msglen)
{
    char where[1024];
    gomp_location(__builtin_return_address(0), where, sizeof where);
    if (msg)
        dsm_fatal("OpenMP error directive (%s): %.*s", where,
                  message_length(msg, msglen), msg);
    dsm_fatal("OpenMP error directive (%s)", where);
}

void GOMP_warning(const char *msg, size_t msglen)
{
    if (msg)
        fprintf(stderr, "OpenMP warning: %.*s\n",
                message_length(msg, msglen), msg);
    else
        fprintf(stderr, "OpenMP warning\n");
}

/* ---- the allocate directive ---------------------------------------------- */

GOMP_EXPORT void *GOMP_alloc(size_t alignment, size_t size,
                             uintptr_t allocator);
GOMP_EXPORT void GOMP_free(void *ptr, uintptr_t allocator);

/* shim_alloc.c's allocators (sharable, any node may free them) */
void *omp_aligned_alloc(size_t alignment, size_t size, uintptr_t allocator);
void omp_free(void *ptr, uintptr_t allocator);

void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    return omp_aligned_alloc(alignment, size, allocator);
}

void GOMP_free(void *ptr, uintptr_t allocator) { omp_free(ptr, allocator); }

/* ---- offload images: no device ------------------------------------------- */

GOMP_EXPORT void GOMP_offload_register(const void *host_table,
                                       int target_type,
                                       const void *target_data);
GOMP_EXPORT void GOMP_offload_register_ver(unsigned version,
                                           const void *host_table,
                                           int target_type,
                                           const void *target_data);
GOMP_EXPORT void GOMP_offload_unregister(const void *host_table,
                                         int target_type,
                                         const void *target_data);
GOMP_EXPORT void GOMP_offload_unregister_ver(unsigned version,
                                             const void *host_table,
                                             int target_type,
                                             const void *target_data);

void GOMP_offload_register(const void *host_table, int target_type,
                           const void *target_data) {}
void GOMP_offload_register_ver(unsigned version, const void *host_table,
                               int target_type, const void *target_data) {}
void GOMP_offload_unregister(const void *host_table, int target_type,
                             const void *target_data) {}
void GOMP_offload_unregister_ver(unsigned version, const void *host_table,
                                 int target_type, const void *target_data) {}

/* ---- entries that end the job -------------------------------------------- */

/* An entry point whose arguments are never read: declared without any,
 * which the C calling convention allows for a function that does not
 * return (the caller owns its arguments). */
#define UNSUPPORTED_ENTRY(RET, NAME, CONSTRUCT, WHY)                          \
    GOMP_EXPORT RET NAME(void);                                               \
    RET NAME(void) { GOMP_UNSUPPORTED(CONSTRUCT, WHY); }

static const char old_abi_why[] =
    "this is the GOMP 1.0 ABI of gcc before 4.9: rebuild the program "
    "with gcc 12 (dsmgcc, dsmfort)";
static const char doacross_why[] =
    "use an ordered loop (ordered clause without a parameter)";
static const char taskred_why[] =
    "dsmomp does not implement GCC's task reductions; use a reduction "
    "clause on a loop or region";
static const char target_why[] =
    "dsmomp does not run gcc's target regions; build the program with "
    "clang (dsmcc), whose target regions run on the host, or without "
    "target constructs";

UNSUPPORTED_ENTRY(void, GOMP_parallel_start, "a parallel region (GOMP 1.0)",
                  old_abi_why)
UNSUPPORTED_ENTRY(void, GOMP_parallel_end, "a parallel region (GOMP 1.0)",
                  old_abi_why)
UNSUPPORTED_ENTRY(void, GOMP_parallel_loop_static_start,
                  "a parallel loop (GOMP 1.0)", old_abi_why)
UNSUPPORTED_ENTRY(void, GOMP_parallel_loop_dynamic_start,
                  "a parallel loop (GOMP 1.0)", old_abi_why)
UNSUPPORTED_ENTRY(void, GOMP_parallel_loop_guided_start,
                  "a parallel loop (GOMP 1.0)", old_abi_why)
UNSUPPORTED_ENTRY(void, GOMP_parallel_loop_runtime_start,
                  "a parallel loop (GOMP 1.0)", old_abi_why)
UNSUPPORTED_ENTRY(void, GOMP_parallel_sections_start,
                  "parallel sections (GOMP 1.0)", old_abi_why)

UNSUPPORTED_ENTRY(bool, GOMP_loop_doacross_static_start,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(bool, GOMP_loop_doacross_dynamic_start,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(bool, GOMP_loop_doacross_guided_start,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(bool, GOMP_loop_doacross_runtime_start,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(bool, GOMP_loop_doacross_start,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(bool, GOMP_loop_ull_doacross_static_start,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(bool, GOMP_loop_ull_doacross_dynamic_start,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(bool, GOMP_loop_ull_doacross_guided_start,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(bool, GOMP_loop_ull_doacross_runtime_start,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(bool, GOMP_loop_ull_doacross_start,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(void, GOMP_doacross_post, "doacross loop (ordered depend)",
                  doacross_why)
UNSUPPORTED_ENTRY(void, GOMP_doacross_wait, "doacross loop (ordered depend)",
                  doacross_why)
UNSUPPORTED_ENTRY(void, GOMP_doacross_ull_post,
                  "doacross loop (ordered depend)", doacross_why)
UNSUPPORTED_ENTRY(void, GOMP_doacross_ull_wait,
                  "doacross loop (ordered depend)", doacross_why)

UNSUPPORTED_ENTRY(unsigned, GOMP_parallel_reductions,
                  "reduction(task, ...) on a parallel region", taskred_why)
UNSUPPORTED_ENTRY(void, GOMP_scope_start, "scope with a task reduction",
                  taskred_why)
UNSUPPORTED_ENTRY(void, GOMP_taskgroup_reduction_register,
                  "task reduction (taskgroup task_reduction)", taskred_why)
UNSUPPORTED_ENTRY(void, GOMP_taskgroup_reduction_unregister,
                  "task reduction (taskgroup task_reduction)", taskred_why)
UNSUPPORTED_ENTRY(void, GOMP_task_reduction_remap,
                  "task reduction (in_reduction)", taskred_why)
UNSUPPORTED_ENTRY(void, GOMP_workshare_task_reduction_unregister,
                  "reduction(task, ...)", taskred_why)

UNSUPPORTED_ENTRY(void, GOMP_target, "target", target_why)
UNSUPPORTED_ENTRY(void, GOMP_target_ext, "target", target_why)
UNSUPPORTED_ENTRY(void, GOMP_target_data, "target data", target_why)
UNSUPPORTED_ENTRY(void, GOMP_target_data_ext, "target data", target_why)
UNSUPPORTED_ENTRY(void, GOMP_target_end_data, "target data", target_why)
UNSUPPORTED_ENTRY(void, GOMP_target_update, "target update", target_why)
UNSUPPORTED_ENTRY(void, GOMP_target_update_ext, "target update", target_why)
UNSUPPORTED_ENTRY(void, GOMP_target_enter_exit_data,
                  "target enter/exit data", target_why)
UNSUPPORTED_ENTRY(void, GOMP_teams, "teams", target_why)
UNSUPPORTED_ENTRY(bool, GOMP_teams4, "teams", target_why)
