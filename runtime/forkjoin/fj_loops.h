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

#endif
