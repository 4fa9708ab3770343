/*
 * fj_static.c - static schedules (__kmpc_for_static_init_*): computed from
 * the thread number alone, no communication.  Unchunked static gives each
 * thread one balanced block, so node k's threads (numbered in a block)
 * hold one contiguous part of the iteration space.
 *
 * Layer: forkjoin.  Entry points: fj_static_init, fj_trip_count,
 * fj_static_part.  Any application thread.
 */
#include "base_log.h"
#include "fj_internal.h"
#include "fj_loops.h"

uint64_t fj_trip_count(fj_int_kind_t kind, int64_t lower, int64_t upper,
                       int64_t incr)
{
    int is_unsigned = kind == FJ_UINT32 || kind == FJ_UINT64;
    uint64_t lo = (uint64_t)lower, hi = (uint64_t)upper;
    if (incr == 0)
        dsm_fatal("work-sharing loop with a zero increment");
    if (incr > 0) {
        if (is_unsigned ? hi < lo : upper < lower)
            return 0;
        return (hi - lo) / (uint64_t)incr + 1;
    }
    if (is_unsigned ? lo < hi : lower < upper)
        return 0;
    return (lo - hi) / (0 - (uint64_t)incr) + 1;
}

fj_static_part_t fj_static_part(uint64_t trip, uint64_t chunk, int nth,
                                int tid)
{
    fj_static_part_t p = {0, 0, 0};
    uint64_t n = (uint64_t)nth, t = (uint64_t)tid;
    if (chunk == 0) {
        uint64_t small = trip / n, extra = trip % n;
        p.count = small + (t < extra);
        p.first = t * small + (t < extra ? t : extra);
        p.stride = trip;
    } else {
        p.first = t * chunk;
        p.count = p.first < trip ? (trip - p.first < chunk ? trip - p.first
                                                           : chunk)
                                 : 0;
        p.stride = n * chunk;
    }
    return p;
}

void fj_static_init(int schedule, fj_int_kind_t kind, int32_t *last,
                    int64_t *lower, int64_t *upper, int64_t *stride,
                    int64_t incr, int64_t chunk)
{
    fj_thread_t *self = fj_self();
    int alone = fj_alone(self);
    int nth = alone ? 1 : self->team->nthreads;
    int tid = alone ? 0 : self->num;
    int base_schedule = schedule & ~FJ_KMP_MODIFIERS;
    if (base_schedule == FJ_KMP_DISTRIBUTE_STATIC ||
        base_schedule == FJ_KMP_DISTRIBUTE_CHUNKED) {
        /* distribute: over the league's teams, not a team's threads */
        nth = fj_num_teams();
        tid = fj_team_num();
    }
    uint64_t trip = fj_trip_count(kind, *lower, *upper, incr);
    if (trip == 0) {
        /* bounds stay as they are: the loop runs no iteration */
        *last = 0;
        *stride = incr;
        return;
    }
    uint64_t c;
    switch (schedule & ~FJ_KMP_MODIFIERS) {
    case FJ_KMP_STATIC_CHUNKED:
    case FJ_KMP_DISTRIBUTE_CHUNKED:
        c = chunk > 0 ? (uint64_t)chunk : 1;
        break;
    case FJ_KMP_STATIC:
    case FJ_KMP_STATIC_GREEDY:
    case FJ_KMP_STATIC_BALANCED:
    case FJ_KMP_STATIC_BALANCED_CHUNKED:
    case FJ_KMP_DISTRIBUTE_STATIC:
        c = 0;
        break;
    default:
        dsm_fatal("unsupported static schedule %d", schedule);
    }
    fj_doacross_schedule(self, FJ_SCHED_STATIC, c, trip);
    if (nth == 1) {
        /* one chunk; the stride takes a chunked loop past its end */
        *last = 1;
        *upper = fj_iter_value(*lower, incr, trip - 1);
        *stride = (int64_t)(trip * (uint64_t)incr);
        return;
    }
    fj_static_part_t p = fj_static_part(trip, c, nth, tid);
    int64_t base = *lower;
    if (c == 0) {
        if (p.count == 0) {
            /* past the end: lower above upper */
            *lower = fj_iter_value(*upper, incr, 1);
            *last = 0;
        } else {
            *lower = fj_iter_value(base, incr, p.first);
            *upper = fj_iter_value(base, incr, p.first + p.count - 1);
            *last = p.first + p.count == trip;
        }
        *stride = (int64_t)(trip * (uint64_t)incr);
        return;
    }
    *lower = fj_iter_value(base, incr, p.first);
    *upper = fj_iter_value(base, incr, p.first + c - 1);
    *stride = (int64_t)(p.stride * (uint64_t)incr);
    *last = (uint64_t)tid == ((trip - 1) / c) % (uint64_t)nth;
}
