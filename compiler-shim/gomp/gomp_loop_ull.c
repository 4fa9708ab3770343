/*
 * gomp_loop_ull.c - work-sharing loops over unsigned long long in GCC's
 * ABI (GOMP_loop_ull_*): gcc's form for loops whose variable does not fit
 * a long.  They take the loop's direction (up), and a downward loop's
 * increment is the two's complement of its step.  Same scheme as the long
 * forms (gomp_loop.c): opened in iteration numbers, chunks turned back
 * into [istart, iend).
 *
 * Layer: compiler-shim.  Members of a region (and lone threads).
 */
#include <stdint.h>

#include "forkjoin.h"
#include "gomp_abi.h"

typedef unsigned long long ull;

#define LEVELS 16
static __thread struct {
    ull start, incr;
} ull_loops[LEVELS];

static int level_index(void)
{
    int level = fj_level();
    return level < LEVELS ? level : LEVELS - 1;
}

static bool next_ull(ull *istart, ull *iend)
{
    uint64_t first, count;
    if (!gomp_loop_next(&first, &count))
        return false;
    int i = level_index();
    *istart = ull_loops[i].start + first * ull_loops[i].incr;
    *iend = ull_loops[i].start + (first + count) * ull_loops[i].incr;
    return true;
}

static bool start_ull(int kmp, bool up, ull start, ull end, ull incr,
                      ull chunk, ull *istart, ull *iend)
{
    int i = level_index();
    ull_loops[i].start = start;
    ull_loops[i].incr = incr;
    gomp_loop_open(kmp, gomp_trip_ull(up, start, end, incr), chunk);
    return next_ull(istart, iend);
}

#define ULL_START(NAME, KMP)                                                  \
    GOMP_EXPORT bool GOMP_loop_ull_##NAME##_start(                            \
        bool up, ull start, ull end, ull incr, ull chunk_size, ull *istart,   \
        ull *iend);                                                           \
    bool GOMP_loop_ull_##NAME##_start(bool up, ull start, ull end, ull incr,  \
                                      ull chunk_size, ull *istart, ull *iend) \
    {                                                                         \
        return start_ull(KMP, up, start, end, incr, chunk_size, istart,       \
                         iend);                                               \
    }

#define ULL_RUNTIME_START(NAME, KMP)                                          \
    GOMP_EXPORT bool GOMP_loop_ull_##NAME##_start(                            \
        bool up, ull start, ull end, ull incr, ull *istart, ull *iend);       \
    bool GOMP_loop_ull_##NAME##_start(bool up, ull start, ull end, ull incr,  \
                                      ull *istart, ull *iend)                 \
    {                                                                         \
        return start_ull(KMP, up, start, end, incr, 0, istart, iend);         \
    }

#define ULL_NEXT(NAME)                                                        \
    GOMP_EXPORT bool GOMP_loop_ull_##NAME##_next(ull *istart, ull *iend);     \
    bool GOMP_loop_ull_##NAME##_next(ull *istart, ull *iend)                  \
    {                                                                         \
        return next_ull(istart, iend);                                        \
    }

#define ORDERED GOMP_KMP_ORDERED
ULL_START(static, GOMP_KMP_STATIC_CHUNKED)
ULL_START(dynamic, GOMP_KMP_DYNAMIC)
ULL_START(guided, GOMP_KMP_GUIDED)
ULL_START(nonmonotonic_dynamic, GOMP_KMP_DYNAMIC)
ULL_START(nonmonotonic_guided, GOMP_KMP_GUIDED)
ULL_RUNTIME_START(runtime, GOMP_KMP_RUNTIME)
ULL_RUNTIME_START(nonmonotonic_runtime, GOMP_KMP_RUNTIME)
ULL_RUNTIME_START(maybe_nonmonotonic_runtime, GOMP_KMP_RUNTIME)
ULL_START(ordered_static, GOMP_KMP_STATIC_CHUNKED + ORDERED)
ULL_START(ordered_dynamic, GOMP_KMP_DYNAMIC + ORDERED)
ULL_START(ordered_guided, GOMP_KMP_GUIDED + ORDERED)
ULL_RUNTIME_START(ordered_runtime, GOMP_KMP_RUNTIME + ORDERED)

ULL_NEXT(static)
ULL_NEXT(dynamic)
ULL_NEXT(guided)
ULL_NEXT(nonmonotonic_dynamic)
ULL_NEXT(nonmonotonic_guided)
ULL_NEXT(runtime)
ULL_NEXT(nonmonotonic_runtime)
ULL_NEXT(maybe_nonmonotonic_runtime)
ULL_NEXT(ordered_static)
ULL_NEXT(ordered_dynamic)
ULL_NEXT(ordered_guided)
ULL_NEXT(ordered_runtime)

GOMP_EXPORT bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr,
                                     long sched, ull chunk_size, ull *istart,
                                     ull *iend, uintptr_t *reductions,
                                     void **mem);
GOMP_EXPORT bool GOMP_loop_ull_ordered_start(bool up, ull start, ull end,
                                             ull incr, long sched,
                                             ull chunk_size, ull *istart,
                                             ull *iend, uintptr_t *reductions,
                                             void **mem);

bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched,
                         ull chunk_size, ull *istart, ull *iend,
                         uintptr_t *reductions, void **mem)
{
    gomp_check_loop_start("GOMP_loop_ull_start", __builtin_return_address(0),
                          istart, reductions, mem);
    return start_ull(gomp_kmp_schedule(sched, false), up, start, end, incr,
                     chunk_size, istart, iend);
}

bool GOMP_loop_ull_ordered_start(bool up, ull start, ull end, ull incr,
                                 long sched, ull chunk_size, ull *istart,
                                 ull *iend, uintptr_t *reductions,
                                 void **mem)
{
    gomp_check_loop_start("GOMP_loop_ull_start", __builtin_return_address(0),
                          istart, reductions, mem);
    return start_ull(gomp_kmp_schedule(sched, true), up, start, end, incr,
                     chunk_size, istart, iend);
}
