/*
 * gomp_loop.c - work-sharing loops, ordered sections and sections in
 * GCC's ABI (the long forms; gomp_loop_ull.c has the unsigned long long
 * ones), on forkjoin's dispatch.
 *
 * Every loop is opened in iteration numbers, 0 .. trip-1, with
 * fj_dispatch_init, and each chunk fj_dispatch_next hands out is turned
 * back into [istart, iend) of the loop's own values: that keeps the
 * exclusive end and both directions out of the fork-join layer, and a
 * loop of no iteration still opens and closes its instance on every
 * member, so instances stay numbered alike on every node.
 *
 * Ordered loops: forkjoin passes the ordered turn from one iteration to
 * the next (fj_ordered_end bumps the team counter, fj_dispatch_fini ends
 * an iteration).  gcc calls nothing at the end of an iteration, only
 * GOMP_ordered_start and GOMP_ordered_end around each ordered section;
 * so each GOMP_ordered_end ends its iteration, and before the thread's
 * next chunk the iterations of the chunk that had no ordered section pass
 * their turns (in order: they come after the ones that had one).
 *
 * sections: a dynamic loop over the section numbers 1 .. count, one per
 * chunk; 0 means no more.
 *
 * Layer: compiler-shim.  Members of a region (and lone threads).
 */
#include <stdint.h>

#include "base_log.h"
#include "forkjoin.h"
#include "gomp_abi.h"

/* The open loop of one nesting level of this thread. */
typedef struct loop_state {
    int ordered;
    uint64_t chunk_left;     /* iterations of the current chunk still
                                holding their ordered turn */
} loop_state_t;

#define LEVELS 16
static __thread loop_state_t loop_states[LEVELS];

static loop_state_t *state(void)
{
    int level = fj_level();
    return &loop_states[level < LEVELS ? level : LEVELS - 1];
}


int gomp_kmp_schedule(long gomp_sched, bool ordered)
{
    int kmp;
    switch ((unsigned long)gomp_sched & ~GOMP_SCHED_MONOTONIC) {
    case GOMP_SCHED_RUNTIME: kmp = GOMP_KMP_RUNTIME; break;
    case GOMP_SCHED_STATIC: kmp = GOMP_KMP_STATIC_CHUNKED; break;
    case GOMP_SCHED_DYNAMIC: kmp = GOMP_KMP_DYNAMIC; break;
    case GOMP_SCHED_GUIDED: kmp = GOMP_KMP_GUIDED; break;
    case GOMP_SCHED_AUTO: kmp = GOMP_KMP_STATIC; break;
    default:
        dsm_fatal("dsmomp: unknown GOMP loop schedule %ld", gomp_sched);
    }
    return ordered ? kmp + GOMP_KMP_ORDERED : kmp;
}

void gomp_loop_open(int kmp_schedule, uint64_t trip, uint64_t chunk)
{
    int base = kmp_schedule >= GOMP_KMP_STATIC_CHUNKED + GOMP_KMP_ORDERED
                   ? kmp_schedule - GOMP_KMP_ORDERED
                   : kmp_schedule;
    /* gcc's static schedule with no chunk is one block per thread */
    if (base == GOMP_KMP_STATIC_CHUNKED && chunk == 0)
        kmp_schedule += GOMP_KMP_STATIC - GOMP_KMP_STATIC_CHUNKED;
    loop_state_t *s = state();
    s->ordered = kmp_schedule != base;
    s->chunk_left = 0;
    /* iteration numbers 0 .. trip-1: as int64 unless the trip count does
     * not fit one (then trip >= 1 and the unsigned form is exact) */
    fj_int_kind_t kind = trip <= (uint64_t)INT64_MAX ? FJ_INT64 : FJ_UINT64;
    fj_dispatch_init(kmp_schedule, kind, 0, (int64_t)(trip - 1), 1,
                     (int64_t)(chunk > (uint64_t)INT64_MAX ? INT64_MAX
                                                           : chunk));
}

bool gomp_loop_next(uint64_t *first, uint64_t *count)
{
    loop_state_t *s = state();
    for (; s->chunk_left > 0; s->chunk_left--)
        fj_dispatch_fini();
    int64_t lower, upper, stride;
    int32_t last;
    if (!fj_dispatch_next(&last, &lower, &upper, &stride))
        return false;
    *first = (uint64_t)lower;
    *count = (uint64_t)upper - (uint64_t)lower + 1;
    if (s->ordered)
        s->chunk_left = *count;
    return true;
}

/* ---- the long forms ------------------------------------------------------ */

static bool next_long(long start, long incr, long *istart, long *iend)
{
    uint64_t first, count;
    if (!gomp_loop_next(&first, &count))
        return false;
    *istart = (long)((uint64_t)start + first * (uint64_t)incr);
    *iend = (long)((uint64_t)start + (first + count) * (uint64_t)incr);
    return true;
}

/* The open loop's start and increment, per level: *_next turns
 * iteration numbers back into the loop's values with them. */
static __thread struct {
    long start, incr;
} long_loops[LEVELS];

static int level_index(void)
{
    int level = fj_level();
    return level < LEVELS ? level : LEVELS - 1;
}

void gomp_loop_open_long(int kmp, long start, long end, long incr,
                         long chunk)
{
    int i = level_index();
    long_loops[i].start = start;
    long_loops[i].incr = incr;
    gomp_loop_open(kmp, gomp_trip_long(start, end, incr),
                   chunk > 0 ? (uint64_t)chunk : 0);
}

static bool next_any(long *istart, long *iend)
{
    int i = level_index();
    return next_long(long_loops[i].start, long_loops[i].incr, istart, iend);
}

static bool start_long(int kmp, long start, long end, long incr,
                       long chunk, long *istart, long *iend)
{
    gomp_loop_open_long(kmp, start, end, incr, chunk);
    return next_any(istart, iend);
}

#define LOOP_START(NAME, KMP)                                                 \
    GOMP_EXPORT bool GOMP_loop_##NAME##_start(long start, long end,           \
                                              long incr, long chunk_size,     \
                                              long *istart, long *iend);      \
    bool GOMP_loop_##NAME##_start(long start, long end, long incr,            \
                                  long chunk_size, long *istart, long *iend)  \
    {                                                                         \
        return start_long(KMP, start, end, incr, chunk_size, istart, iend);   \
    }

#define LOOP_RUNTIME_START(NAME, KMP)                                         \
    GOMP_EXPORT bool GOMP_loop_##NAME##_start(long start, long end,           \
                                              long incr, long *istart,        \
                                              long *iend);                    \
    bool GOMP_loop_##NAME##_start(long start, long end, long incr,            \
                                  long *istart, long *iend)                   \
    {                                                                         \
        return start_long(KMP, start, end, incr, 0, istart, iend);            \
    }

#define LOOP_NEXT(NAME)                                                       \
    GOMP_EXPORT bool GOMP_loop_##NAME##_next(long *istart, long *iend);       \
    bool GOMP_loop_##NAME##_next(long *istart, long *iend)                    \
    {                                                                         \
        return next_any(istart, iend);                                        \
    }

#define ORDERED GOMP_KMP_ORDERED
LOOP_START(static, GOMP_KMP_STATIC_CHUNKED)
LOOP_START(dynamic, GOMP_KMP_DYNAMIC)
LOOP_START(guided, GOMP_KMP_GUIDED)
LOOP_START(nonmonotonic_dynamic, GOMP_KMP_DYNAMIC)
LOOP_START(nonmonotonic_guided, GOMP_KMP_GUIDED)
LOOP_RUNTIME_START(runtime, GOMP_KMP_RUNTIME)
LOOP_RUNTIME_START(nonmonotonic_runtime, GOMP_KMP_RUNTIME)
LOOP_RUNTIME_START(maybe_nonmonotonic_runtime, GOMP_KMP_RUNTIME)
LOOP_START(ordered_static, GOMP_KMP_STATIC_CHUNKED + ORDERED)
LOOP_START(ordered_dynamic, GOMP_KMP_DYNAMIC + ORDERED)
LOOP_START(ordered_guided, GOMP_KMP_GUIDED + ORDERED)
LOOP_RUNTIME_START(ordered_runtime, GOMP_KMP_RUNTIME + ORDERED)

LOOP_NEXT(static)
LOOP_NEXT(dynamic)
LOOP_NEXT(guided)
LOOP_NEXT(nonmonotonic_dynamic)
LOOP_NEXT(nonmonotonic_guided)
LOOP_NEXT(runtime)
LOOP_NEXT(nonmonotonic_runtime)
LOOP_NEXT(maybe_nonmonotonic_runtime)
LOOP_NEXT(ordered_static)
LOOP_NEXT(ordered_dynamic)
LOOP_NEXT(ordered_guided)
LOOP_NEXT(ordered_runtime)

/* The OpenMP 5 entry: sched is a GOMP schedule; reductions (task
 * reductions) and mem (team memory for lastprivate(conditional:) and
 * scans) are not supported; istart NULL would only open the loop. */
GOMP_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched,
                                 long chunk_size, long *istart, long *iend,
                                 uintptr_t *reductions, void **mem);
GOMP_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr,
                                         long sched, long chunk_size,
                                         long *istart, long *iend,
                                         uintptr_t *reductions, void **mem);

bool GOMP_loop_start(long start, long end, long incr, long sched,
                     long chunk_size, long *istart, long *iend,
                     uintptr_t *reductions, void **mem)
{
    gomp_check_loop_start("GOMP_loop_start", __builtin_return_address(0),
                          istart, reductions, mem);
    return start_long(gomp_kmp_schedule(sched, false), start, end, incr,
                      chunk_size, istart, iend);
}

bool GOMP_loop_ordered_start(long start, long end, long incr, long sched,
                             long chunk_size, long *istart, long *iend,
                             uintptr_t *reductions, void **mem)
{
    gomp_check_loop_start("GOMP_loop_start", __builtin_return_address(0),
                          istart, reductions, mem);
    return start_long(gomp_kmp_schedule(sched, true), start, end, incr,
                      chunk_size, istart, iend);
}

/* ---- the end of a loop --------------------------------------------------- */

GOMP_EXPORT void GOMP_loop_end(void);
GOMP_EXPORT void GOMP_loop_end_nowait(void);
GOMP_EXPORT bool GOMP_loop_end_cancel(void);

/* The last *_next said no more work: the instance is closed already.
 * The call site names the barrier for the DSM's prefetch (fj_barrier_at),
 * as __kmpc_barrier's does. */
void GOMP_loop_end(void) { fj_barrier_at(__builtin_return_address(0)); }
void GOMP_loop_end_nowait(void) {}

/* Nothing is ever cancelled (gomp_unsupported.c). */
bool GOMP_loop_end_cancel(void)
{
    fj_barrier_at(__builtin_return_address(0));
    return false;
}

/* ---- ordered ------------------------------------------------------------- */

GOMP_EXPORT void GOMP_ordered_start(void);
GOMP_EXPORT void GOMP_ordered_end(void);

void GOMP_ordered_start(void) { fj_ordered_begin(); }

void GOMP_ordered_end(void)
{
    fj_ordered_end();
    loop_state_t *s = state();
    if (s->chunk_left > 0) {
        fj_dispatch_fini();
        s->chunk_left--;
    }
}

/* ---- sections ------------------------------------------------------------ */

GOMP_EXPORT unsigned GOMP_sections_start(unsigned count);
GOMP_EXPORT unsigned GOMP_sections2_start(unsigned count,
                                          uintptr_t *reductions, void **mem);
GOMP_EXPORT unsigned GOMP_sections_next(void);
GOMP_EXPORT void GOMP_sections_end(void);
GOMP_EXPORT void GOMP_sections_end_nowait(void);
GOMP_EXPORT bool GOMP_sections_end_cancel(void);

unsigned GOMP_sections_next(void)
{
    uint64_t first, count;
    return gomp_loop_next(&first, &count) ? (unsigned)first + 1 : 0;
}

unsigned GOMP_sections_start(unsigned count)
{
    gomp_loop_open(GOMP_KMP_DYNAMIC, count, 1);
    return GOMP_sections_next();
}

unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions,
                              void **mem)
{
    if (reductions)
        GOMP_UNSUPPORTED("reduction(task, ...) on sections",
                         "dsmomp does not implement GCC's task reductions; "
                         "use a plain reduction clause");
    if (mem)
        GOMP_UNSUPPORTED("lastprivate(conditional:) on sections",
                         "use lastprivate");
    return GOMP_sections_start(count);
}

void GOMP_sections_end(void) { fj_barrier_at(__builtin_return_address(0)); }
void GOMP_sections_end_nowait(void) {}

bool GOMP_sections_end_cancel(void)
{
    fj_barrier_at(__builtin_return_address(0));
    return false;
}
