/*
 * gomp_abi.h - GCC's OpenMP ABI (libgomp's GOMP_* entry points, as gcc 12
 * and gfortran 12 call them) on dsmomp's fork-join layer: the constants of
 * that ABI and what the gomp modules share.
 *
 * Layer: compiler-shim (internal header of compiler-shim/gomp).  Written
 * from the calls gcc emits (-fdump-tree-ompexp) and libgomp's documented
 * interface; the values below are gcc's (gomp-constants.h), which programs
 * carry compiled in.
 *
 * Facts of the ABI the modules rely on:
 *   - A region's body is fn(data): data points to a structure gcc built on
 *     the encountering thread's stack (its shared variables' addresses,
 *     small firstprivate and copyin values, copy-out slots).
 *   - Loops give [start, end) with an increment; *_start and *_next return
 *     true with [*istart, *iend) when the thread has a chunk.  _ull forms
 *     take a direction flag and unsigned bounds (a downward increment is
 *     the two's complement of the step).
 *   - gcc computes static schedules itself from omp_get_num_threads and
 *     omp_get_thread_num; GOMP_loop_static_* appear for ordered loops and
 *     combined constructs.
 *   - Reductions are combined by the team's threads themselves, with
 *     __atomic builtins or between GOMP_atomic_start and GOMP_atomic_end.
 */
#ifndef GOMP_ABI_H
#define GOMP_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GOMP_EXPORT __attribute__((visibility("default")))

/* Schedules of GOMP_loop_start (gomp_schedule_type), with the monotonic
 * modifier in the top bit. */
enum {
    GOMP_SCHED_RUNTIME = 0,
    GOMP_SCHED_STATIC = 1,
    GOMP_SCHED_DYNAMIC = 2,
    GOMP_SCHED_GUIDED = 3,
    GOMP_SCHED_AUTO = 4,
};
#define GOMP_SCHED_MONOTONIC 0x80000000UL

/* GOMP_task and GOMP_taskloop flags. */
enum {
    GOMP_TASK_FLAG_UNTIED = 1 << 0,
    GOMP_TASK_FLAG_FINAL = 1 << 1,
    GOMP_TASK_FLAG_MERGEABLE = 1 << 2,
    GOMP_TASK_FLAG_DEPEND = 1 << 3,
    GOMP_TASK_FLAG_PRIORITY = 1 << 4,
    GOMP_TASK_FLAG_UP = 1 << 8,
    GOMP_TASK_FLAG_GRAINSIZE = 1 << 9,
    GOMP_TASK_FLAG_IF = 1 << 10,
    GOMP_TASK_FLAG_NOGROUP = 1 << 11,
    GOMP_TASK_FLAG_REDUCTION = 1 << 12,
    GOMP_TASK_FLAG_DETACH = 1 << 13,
    GOMP_TASK_FLAG_STRICT = 1 << 14,
};

/* The libomp schedule numbers forkjoin's dispatch takes. */
enum {
    GOMP_KMP_STATIC_CHUNKED = 33,
    GOMP_KMP_STATIC = 34,
    GOMP_KMP_DYNAMIC = 35,
    GOMP_KMP_GUIDED = 36,
    GOMP_KMP_RUNTIME = 37,
    GOMP_KMP_ORDERED = 32,          /* added to the above */
};

/* ---- gomp_unsupported.c -------------------------------------------------- */

/* End the job: "dsmomp: CONSTRUCT is not supported (in FUNCTION): WHY";
 * caller: the return address of the entry point the program called. */
__attribute__((noreturn)) void gomp_unsupported(const char *construct,
                                                const void *caller,
                                                const char *why);
#define GOMP_UNSUPPORTED(construct, why)                                      \
    gomp_unsupported(construct, __builtin_return_address(0), why)

/* "in FUNCTION" for the code at caller (a return address), with gcc's
 * outlined bodies (f._omp_fn.3) named by the function they came from. */
const char *gomp_location(const void *caller, char *buf, size_t size);

/* GOMP_loop(_ull)_start's clauses dsmomp does not support end the job;
 * entry: the function's name for the message. */
void gomp_check_loop_start(const char *entry, const void *caller,
                           const void *istart, const uintptr_t *reductions,
                           void *const *mem);

/* OMP_CANCELLATION asks for cancellation (it is then not supported). */
bool gomp_cancellation_requested(void);

/* ---- gomp_loop.c --------------------------------------------------------- */

/* Open a loop of trip iterations, numbered 0 .. trip-1, with a libomp
 * schedule number (ordered ones included) and chunk; every member calls
 * it.  Then gomp_loop_next gives the next chunk as iteration numbers
 * [*first, *first + *count). */
void gomp_loop_open(int kmp_schedule, uint64_t trip, uint64_t chunk);
bool gomp_loop_next(uint64_t *first, uint64_t *count);
/* Open a loop of long values [start, end) by incr for the GOMP_loop_*_next
 * calls that follow (a combined parallel loop's body starts with one). */
void gomp_loop_open_long(int kmp_schedule, long start, long end, long incr,
                         long chunk);

/* The libomp schedule number of a GOMP_loop_start schedule. */
int gomp_kmp_schedule(long gomp_sched, bool ordered);

/* ---- gomp_parallel.c ----------------------------------------------------- */

/* What the team does before the body: nothing, open a loop (combined
 * parallel loop), or open sections. */
typedef enum gomp_work {
    GOMP_WORK_NONE = 0,
    GOMP_WORK_LOOP = 1,
    GOMP_WORK_SECTIONS = 2,
} gomp_work_t;

/* The loop a combined construct opens before its body: for sections
 * start 0, end the number of sections, incr 1. */
typedef struct gomp_team_loop {
    int kmp_schedule;
    long start, end, incr, chunk;
} gomp_team_loop_t;

void gomp_parallel(const void *caller, void (*fn)(void *), void *data,
                   unsigned num_threads, gomp_work_t work,
                   const gomp_team_loop_t *loop);

/* The size of the data block of the next region or copyprivate this
 * thread starts, as dsm's GCC plug-in announces it (0: unknown); the call
 * reads and forgets it. */
size_t gomp_take_data_size(void);

/* ---- trip counts --------------------------------------------------------- */

/* Iterations of for (i = start; i < end (> end); i += incr). */
static inline uint64_t gomp_trip_long(long start, long end, long incr)
{
    if (incr > 0)
        return start < end ? ((uint64_t)end - (uint64_t)start - 1) /
                                 (uint64_t)incr + 1
                           : 0;
    if (incr < 0)
        return start > end ? ((uint64_t)start - (uint64_t)end - 1) /
                                 (0 - (uint64_t)incr) + 1
                           : 0;
    return 0;
}

static inline uint64_t gomp_trip_ull(bool up, unsigned long long start,
                                     unsigned long long end,
                                     unsigned long long incr)
{
    if (up)
        return start < end && incr ? (end - start - 1) / incr + 1 : 0;
    unsigned long long step = 0 - incr;
    return start > end && step ? (start - end - 1) / step + 1 : 0;
}

#endif
