/*
 * fj_dispatch.c - loops scheduled at run time (__kmpc_dispatch_*):
 * dynamic, guided, runtime, auto, and every ordered loop.
 *
 * Static kinds (and auto) are computed from the thread number.  Dynamic
 * and guided loops share counters in node 0's CONTROL words, one loop slot
 * per open loop instance; instances are numbered the same on every node
 * (each member meets the loops in the same order), instance i uses slot
 * i % FJ_LOOP_SLOTS.  A slot is reset by the last node to finish its loop
 * and then its generation is bumped; a later instance waits for the
 * generation it needs only when no barrier has passed since the slot's
 * previous loop (consecutive nowait loops).
 *
 *   dynamic: a node claims a block of chunks with one remote fetch-add -
 *            a quarter of its share of what remains, at least one chunk
 *            per local member - and its threads take chunks from the
 *            block under the node's loop mutex, several consecutive ones
 *            at a time while the block is large.
 *   guided:  one remote fetch-add per chunk on a chunk index; chunk k's
 *            bounds follow the usual guided rule (remaining / 2n, at least
 *            the chunk size) computed the same way on every node.
 *
 * A cancelled loop (cancel for) hands out no more chunks; a thread that
 * leaves it at a cancellation point closes its share (fj_dispatch_abandon).
 * A cancelled region may leave instances some members never met: its end
 * forgets them (fj_dispatch_forget) and node 0 resets the slots.
 *
 * Layer: forkjoin.  Entry points: fj_dispatch_init, fj_dispatch_next,
 * fj_slot_word, fj_dispatch_abandon/forget/reset_slots.  Members of a region (and lone threads, for which every
 * loop is one chunk).
 */
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "fj_cancel.h"
#include "fj_internal.h"
#include "fj_loops.h"
#include "fj_words.h"

#define GUIDED_BOUNDS_MAX 4096

size_t fj_slot_word(uint64_t instance, size_t field)
{
    return FJ_WORD(loops) +
           (size_t)(instance % FJ_LOOP_SLOTS) * sizeof(fj_loop_slot_t) + field;
}

static int resolve(int schedule, const fj_sched_t *run_sched, int64_t chunk,
                   int *kind, uint64_t *c, int *ordered)
{
    int s = schedule & ~FJ_KMP_MODIFIERS;
    *ordered = s >= FJ_KMP_ORDERED_FIRST && s < FJ_KMP_ORDERED_END;
    if (*ordered)
        s -= FJ_KMP_ORDERED_FIRST - 32;
    *c = chunk > 0 ? (uint64_t)chunk : 0;
    switch (s) {
    case FJ_KMP_STATIC_CHUNKED:
        *kind = FJ_SCHED_STATIC;
        if (!*c)
            *c = 1;
        return 0;
    case FJ_KMP_STATIC:
    case FJ_KMP_STATIC_GREEDY:
    case FJ_KMP_STATIC_BALANCED:
    case FJ_KMP_STATIC_BALANCED_CHUNKED:
    case FJ_KMP_AUTO:          /* auto: no communication at all */
        *kind = FJ_SCHED_STATIC;
        *c = 0;
        return 0;
    case FJ_KMP_DYNAMIC_CHUNKED:
    case FJ_KMP_STATIC_STEAL:
        *kind = FJ_SCHED_DYNAMIC;
        break;
    case FJ_KMP_GUIDED_CHUNKED:
    case FJ_KMP_TRAPEZOIDAL:
    case FJ_KMP_GUIDED_ITERATIVE:
    case FJ_KMP_GUIDED_ANALYTICAL:
    case FJ_KMP_GUIDED_SIMD:
        *kind = FJ_SCHED_GUIDED;
        break;
    case FJ_KMP_RUNTIME:
    case FJ_KMP_RUNTIME_SIMD:
        /* run-sched-var; its chunk 0 (or less) is the kind's default:
         * balanced blocks for static, one iteration otherwise */
        *kind = FJ_SCHED_KIND(run_sched->kind);
        *c = run_sched->chunk > 0 ? (uint64_t)run_sched->chunk : 0;
        if (*kind == FJ_SCHED_AUTO) {
            *kind = FJ_SCHED_STATIC;
            *c = 0;
        }
        if (*kind == FJ_SCHED_STATIC)
            return 0;
        break;
    default:
        return -1;
    }
    if (!*c)
        *c = 1;
    return 0;
}

/* Take this node's entry of the loop's slot; the first local member sets
 * it up and, when the slot may still be in use, waits for its
 * generation. */
static void open_shared(fj_thread_t *self, fj_loop_t *loop)
{
    fj_team_t *team = self->team;
    uint64_t index = self->loops++;
    uint64_t inst = team->loop_base + index;
    fj_loop_local_t *e = &team->loops[inst % FJ_LOOP_SLOTS];
    loop->instance = inst;
    pthread_mutex_lock(&team->loop_mutex);
    while (e->instance != 0 && e->instance != inst + 1)
        pthread_cond_wait(&team->loop_cond, &team->loop_mutex);
    if (e->instance == 0) {
        e->instance = inst + 1;
        e->ready = 0;
        e->block_next = e->block_end = e->claimed = 0;
        e->exhausted = e->finished = 0;
        e->nbounds = 0;
        e->tail = 0;
        pthread_mutex_unlock(&team->loop_mutex);
        if (index >= self->loops_safe + FJ_LOOP_SLOTS)
            fj_word_wait(fj_slot_word(inst, offsetof(fj_loop_slot_t, gen)),
                         inst / FJ_LOOP_SLOTS);
        pthread_mutex_lock(&team->loop_mutex);
        e->ready = 1;
        pthread_cond_broadcast(&team->loop_cond);
    } else {
        while (!e->ready)
            pthread_cond_wait(&team->loop_cond, &team->loop_mutex);
    }
    pthread_mutex_unlock(&team->loop_mutex);
    loop->local = e;
}

/* The last local member to finish reports the node; the last node resets
 * the slot and bumps its generation. */
static void close_shared(fj_thread_t *self, fj_loop_t *loop)
{
    fj_team_t *team = self->team;
    fj_loop_local_t *e = loop->local;
    pthread_mutex_lock(&team->loop_mutex);
    int last = ++e->finished == team->local_count;
    pthread_mutex_unlock(&team->loop_mutex);
    if (!last)
        return;
    uint64_t inst = loop->instance;
    if (fj_word_fadd(fj_slot_word(inst, offsetof(fj_loop_slot_t, done)), 1) +
        1 == (uint64_t)team->nodes) {
        fj_word_swap(fj_slot_word(inst, offsetof(fj_loop_slot_t, next)), 0);
        fj_word_swap(fj_slot_word(inst, offsetof(fj_loop_slot_t, ord)), 0);
        fj_word_swap(fj_slot_word(inst, offsetof(fj_loop_slot_t, done)), 0);
        fj_word_fadd(fj_slot_word(inst, offsetof(fj_loop_slot_t, gen)), 1);
    }
    pthread_mutex_lock(&team->loop_mutex);
    e->instance = 0;
    pthread_cond_broadcast(&team->loop_cond);
    pthread_mutex_unlock(&team->loop_mutex);
}

void fj_dispatch_init(int schedule, fj_int_kind_t kind, int64_t lower,
                      int64_t upper, int64_t incr, int64_t chunk)
{
    fj_thread_t *self = fj_self();
    fj_loop_t *loop = fj_loop_here(self);
    int sched_kind, ordered;
    uint64_t c;
    if (resolve(schedule, &self->icv.sched, chunk, &sched_kind, &c,
                &ordered) != 0)
        dsm_fatal("unsupported loop schedule %d", schedule);
    memset(loop, 0, sizeof *loop);
    loop->trip = fj_trip_count(kind, lower, upper, incr);
    loop->lower = lower;
    loop->incr = incr;
    loop->ordered = ordered;
    if (fj_alone(self)) {
        loop->kind = FJ_SCHED_STATIC;       /* everything in one chunk */
        return;
    }
    loop->kind = sched_kind;
    loop->chunk = c;
    loop->shared = sched_kind != FJ_SCHED_STATIC || ordered;
    if (loop->shared)
        open_shared(self, loop);
    fj_doacross_schedule(self, sched_kind, c, loop->trip);
}

static int next_static(fj_thread_t *self, fj_loop_t *loop, uint64_t *first,
                       uint64_t *count)
{
    int alone = fj_alone(self);
    int nth = alone ? 1 : self->team->nthreads;
    int tid = alone ? 0 : self->num;
    if (loop->chunk == 0) {
        if (loop->handed++)
            return 0;
        fj_static_part_t p = fj_static_part(loop->trip, 0, nth, tid);
        *first = p.first;
        *count = p.count;
        return p.count != 0;
    }
    uint64_t index = (uint64_t)tid + loop->handed++ * (uint64_t)nth;
    if (index >= (loop->trip + loop->chunk - 1) / loop->chunk)
        return 0;
    *first = index * loop->chunk;
    *count = loop->trip - *first < loop->chunk ? loop->trip - *first
                                                : loop->chunk;
    return 1;
}

static int next_dynamic(fj_thread_t *self, fj_loop_t *loop, uint64_t *first,
                        uint64_t *count)
{
    fj_team_t *team = self->team;
    fj_loop_local_t *e = loop->local;
    uint64_t c = loop->chunk;
    uint64_t nchunks = (loop->trip + c - 1) / c;
    uint64_t index = 0;
    int got = 0;
    pthread_mutex_lock(&team->loop_mutex);
    while (e->block_next >= e->block_end && !e->exhausted) {
        uint64_t block = (uint64_t)team->local_count;
        uint64_t left = nchunks > e->claimed ? nchunks - e->claimed : 0;
        if (!loop->ordered && left / (4 * (uint64_t)team->nodes) > block)
            block = left / (4 * (uint64_t)team->nodes);
        uint64_t old = fj_word_fadd(
            fj_slot_word(loop->instance, offsetof(fj_loop_slot_t, next)),
            block);
        e->claimed = old + block;
        if (old >= nchunks) {
            e->exhausted = 1;
        } else {
            e->block_next = old;
            e->block_end = old + block < nchunks ? old + block : nchunks;
        }
    }
    uint64_t take = 0;
    if (e->block_next < e->block_end) {
        /* consecutive chunks at once, a share of what the block holds:
         * the same as asking for them one by one, without the cost */
        take = (e->block_end - e->block_next) /
               (2 * (uint64_t)team->local_count);
        if (take == 0)
            take = 1;
        index = e->block_next;
        e->block_next += take;
        got = 1;
    }
    pthread_mutex_unlock(&team->loop_mutex);
    if (!got)
        return 0;
    *first = index * c;
    uint64_t span = take * c;
    *count = loop->trip - *first < span ? loop->trip - *first : span;
    return 1;
}

static void bounds_push(fj_loop_local_t *e, uint64_t value)
{
    if (e->nbounds == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 64;
        uint64_t *b = realloc(e->bounds, cap * sizeof *b);
        if (!b)
            dsm_fatal("out of memory for a guided schedule");
        e->bounds = b;
        e->cap = cap;
    }
    e->bounds[e->nbounds++] = value;
}

/* Iterations [start, end) of guided chunk k; loop mutex held. */
static void guided_chunk(fj_loop_local_t *e, const fj_loop_t *loop, int nth,
                         uint64_t k, uint64_t *start, uint64_t *end)
{
    uint64_t div = 2 * (uint64_t)nth;
    while (!e->tail && e->nbounds <= k + 1) {
        if (e->nbounds == 0) {
            bounds_push(e, 0);
            continue;
        }
        uint64_t s = e->bounds[e->nbounds - 1];
        uint64_t left = loop->trip > s ? loop->trip - s : 0;
        uint64_t size = (left + div - 1) / div;
        if (size <= loop->chunk || e->nbounds == GUIDED_BOUNDS_MAX) {
            /* from here on every chunk has the same size */
            e->tail = 1;
            e->tail_index = e->nbounds - 1;
            e->tail_start = s;
            e->tail_size = size > loop->chunk ? size : loop->chunk;
            break;
        }
        bounds_push(e, s + size);
    }
    if (e->tail && k >= e->tail_index) {
        *start = e->tail_start + (k - e->tail_index) * e->tail_size;
        *end = *start + e->tail_size;
    } else {
        *start = e->bounds[k];
        *end = e->bounds[k + 1];
    }
}

static int next_guided(fj_thread_t *self, fj_loop_t *loop, uint64_t *first,
                       uint64_t *count)
{
    fj_team_t *team = self->team;
    fj_loop_local_t *e = loop->local;
    pthread_mutex_lock(&team->loop_mutex);
    int exhausted = e->exhausted;
    pthread_mutex_unlock(&team->loop_mutex);
    if (exhausted)
        return 0;
    uint64_t k = fj_word_fadd(
        fj_slot_word(loop->instance, offsetof(fj_loop_slot_t, next)), 1);
    uint64_t start, end;
    pthread_mutex_lock(&team->loop_mutex);
    guided_chunk(e, loop, team->nthreads, k, &start, &end);
    if (start >= loop->trip)
        e->exhausted = 1;
    pthread_mutex_unlock(&team->loop_mutex);
    if (start >= loop->trip)
        return 0;
    *first = start;
    *count = (end < loop->trip ? end : loop->trip) - start;
    return 1;
}

int fj_dispatch_next(int32_t *last, int64_t *lower, int64_t *upper,
                     int64_t *stride)
{
    fj_thread_t *self = fj_self();
    fj_loop_t *loop = fj_loop_here(self);
    if (loop->done)
        return 0;
    uint64_t first = 0, count = 0;
    int got;
    if (loop->trip == 0 || fj_cancel_loop_cancelled(self))
        got = 0;
    else if (loop->kind == FJ_SCHED_DYNAMIC)
        got = next_dynamic(self, loop, &first, &count);
    else if (loop->kind == FJ_SCHED_GUIDED)
        got = next_guided(self, loop, &first, &count);
    else
        got = next_static(self, loop, &first, &count);
    if (!got) {
        loop->done = 1;
        if (loop->shared)
            close_shared(self, loop);
        return 0;
    }
    *lower = fj_iter_value(loop->lower, loop->incr, first);
    *upper = fj_iter_value(loop->lower, loop->incr, first + count - 1);
    *stride = loop->incr;
    *last = first + count == loop->trip;
    loop->ord_cur = first;
    loop->ord_bumped = 0;
    return 1;
}

/* ---- cancellation ------------------------------------------------------ */

void fj_dispatch_abandon(fj_thread_t *self)
{
    fj_loop_t *loop = fj_loop_here(self);
    if (loop->done)
        return;
    loop->done = 1;
    if (loop->shared)
        close_shared(self, loop);
}

void fj_dispatch_forget(fj_team_t *team)
{
    pthread_mutex_lock(&team->loop_mutex);
    for (int i = 0; i < FJ_LOOP_SLOTS; i++)
        team->loops[i].instance = 0;
    pthread_cond_broadcast(&team->loop_cond);
    pthread_mutex_unlock(&team->loop_mutex);
}

void fj_dispatch_reset_slots(uint64_t base)
{
    for (uint64_t inst = base; inst < base + FJ_LOOP_SLOTS; inst++) {
        fj_word_swap(fj_slot_word(inst, offsetof(fj_loop_slot_t, next)), 0);
        fj_word_swap(fj_slot_word(inst, offsetof(fj_loop_slot_t, ord)), 0);
        fj_word_swap(fj_slot_word(inst, offsetof(fj_loop_slot_t, done)), 0);
        /* the generation instance inst waits for */
        fj_word_swap(fj_slot_word(inst, offsetof(fj_loop_slot_t, gen)),
                     inst / FJ_LOOP_SLOTS);
    }
}
