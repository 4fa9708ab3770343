/*
 * fj_loops.h - iteration-space arithmetic shared by the loop modules:
 * trip counts, the value of iteration i, the kmp schedule numbers, and the
 * static partitions.  Iterations are numbered 0 .. trip-1.
 *
 * Layer: forkjoin (internal).  Pure functions; any thread.
 */
#ifndef FJ_LOOPS_H
#define FJ_LOOPS_H

#include <stdint.h>

#include "fj_internal.h"

/* Schedule numbers of the libomp ABI (kmp.h's enum sched_type). */
enum fj_kmp_sched {
    FJ_KMP_STATIC_CHUNKED = 33,
    FJ_KMP_STATIC = 34,
    FJ_KMP_DYNAMIC_CHUNKED = 35,
    FJ_KMP_GUIDED_CHUNKED = 36,
    FJ_KMP_RUNTIME = 37,
    FJ_KMP_AUTO = 38,
    FJ_KMP_TRAPEZOIDAL = 39,
    FJ_KMP_STATIC_GREEDY = 40,
    FJ_KMP_STATIC_BALANCED = 41,
    FJ_KMP_GUIDED_ITERATIVE = 42,
    FJ_KMP_GUIDED_ANALYTICAL = 43,
    FJ_KMP_STATIC_STEAL = 44,
    FJ_KMP_STATIC_BALANCED_CHUNKED = 45,
    FJ_KMP_GUIDED_SIMD = 46,
    FJ_KMP_RUNTIME_SIMD = 47,
    FJ_KMP_ORDERED_FIRST = 64,       /* ordered kinds: the above + 32 */
    FJ_KMP_ORDERED_END = 72,
    FJ_KMP_DISTRIBUTE_CHUNKED = 91,
    FJ_KMP_DISTRIBUTE_STATIC = 92,
};
#define FJ_KMP_MODIFIERS ((1 << 29) | (1 << 30))  /* (non)monotonic */

/* Iterations of lower..upper (inclusive) by incr; 0 when empty. */
uint64_t fj_trip_count(fj_int_kind_t kind, int64_t lower, int64_t upper,
                       int64_t incr);

/* The loop variable's value at iteration i (wraps like the C type). */
static inline int64_t fj_iter_value(int64_t lower, int64_t incr, uint64_t i)
{
    return (int64_t)((uint64_t)lower + i * (uint64_t)incr);
}

/* A thread's part of a static schedule. */
typedef struct fj_static_part {
    uint64_t first, count;   /* its first chunk: iterations, count 0: none */
    uint64_t stride;         /* iterations from one chunk to its next */
} fj_static_part_t;

/* chunk 0: one balanced block per thread; else chunks of that size dealt
 * round-robin. */
fj_static_part_t fj_static_part(uint64_t trip, uint64_t chunk, int nth,
                                int tid);

/* Offset of a field of the loop slot that instance uses, among the
 * CONTROL words (fj_dispatch.c). */
size_t fj_slot_word(uint64_t instance, size_t field);

/* Cancellation (fj_dispatch.c): the calling thread leaves its dispatch
 * loop early (cancel for); a cancelled region's end forgets the node's
 * loop instances some members never met; node 0, after the join of a
 * cancelled region, resets every loop slot for instances from base on. */
void fj_dispatch_abandon(fj_thread_t *self);
void fj_dispatch_forget(fj_team_t *team);
void fj_dispatch_reset_slots(uint64_t base);

/* Doacross (fj_doacross.c): the schedule of the work-sharing loop that
 * follows fj_doacross_init - its kind (FJ_SCHED_*), chunk (0: static's
 * balanced blocks) and trip count - tells which node runs an iteration. */
void fj_doacross_schedule(fj_thread_t *self, int kind, uint64_t chunk,
                          uint64_t trip);
/* Start-up: register the DOACROSS message. */
void fj_doacross_register(void);
/* A team inside one node starts a region: forget its earlier regions'
 * loops (a cancelled region may leave one unfinished). */
void fj_doacross_forget_team(const fj_team_t *team);

#endif
