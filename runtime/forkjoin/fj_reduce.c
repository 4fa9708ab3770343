/*
 * fj_reduce.c - reductions across threads and nodes, never through inline
 * atomics (those would bypass the DSM).
 *
 * Inside a node the members combine into the private copies of the first
 * to arrive (reduce_func runs on pointers valid in that node), under a
 * spin lock of the reduction's entry; that thread - the holder - waits
 * until every member has combined (a short spin, then a futex sleep).
 *
 * Across nodes, two paths; every node takes the same one for a given
 * reduction (the choice depends only on what every member knows alike):
 *  - partials (the compiler told the sizes of the variables and they fit
 *    in FJ_RED_MAX_BYTES): each other node's holder packs its partial
 *    result into one REDUCE message to node 0 and gets 0; node 0's holder
 *    waits for them, combines them into its private copies, and alone gets
 *    1 to write the original.  One message per node, no lock, no page
 *    moves.  Node 0 has FJ_RED_SLOTS slots per node, emptied before its
 *    next barrier; a node that runs more nowait reductions than that
 *    since the last barrier first waits until node 0 has combined the
 *    slot's previous reduction (node 0's red_done word).
 *  - locked (sizes unknown: array sections, VLAs, programs compiled
 *    without dsmcc's plug-in): every node's holder gets 1 and combines
 *    into the original under a cluster lock named by the reduction's lock
 *    variable.
 * A nested team (inside one node, fj_nested.c) combines under that
 * cluster lock too: the original is often shared by the outer team, so
 * the inner teams of several outer threads, on this node and on others,
 * combine into it at the same time, with no barrier between them (two
 * unlocked read-modify-writes on two nodes are two diffs of one word:
 * the home keeps the last, and one team's result was lost).
 * Either way the barrier that follows the construct (clang emits it after
 * __kmpc_end_reduce, or it is the region's join) publishes the result.
 * The two paths do not order against each other: nowait reductions of one
 * variable without a barrier between them must take the same path (limit
 * in design.md).
 *
 * Layer: forkjoin.  Entry points: fj_reduce_begin, fj_reduce_end.
 * Members of a region; a lone thread gets 1 at once.
 */
#include <sched.h>
#include <stdint.h>

#include "base_activity.h"
#include "fj_internal.h"
#include "fj_partials.h"
#include "fj_wait.h"
#include "fj_words.h"

/* Variables of one reduction on the partials path, at most. */
#define RED_MAX_VARS 16

typedef void (*combine_fn)(void *lhs, void *rhs);

/* Combine the node's members into the first one's copies; returns 1 to
 * that one once every member has combined, 0 to the others. */
static int combine_in_node(fj_team_t *team, uint64_t seq, void *data,
                           combine_fn combine)
{
    uint32_t members = (uint32_t)team->local_count;
    if (members == 1)
        return 1;
    fj_red_entry_t *e = &team->red[seq % FJ_RED_ENTRIES];
    for (;;) {
        dsm_mutex_lock(&e->lock);
        if (e->seq == 0 || e->seq == seq)
            break;
        /* a reduction FJ_RED_ENTRIES earlier still holds the entry */
        dsm_mutex_unlock(&e->lock);
        sched_yield();
    }
    if (e->seq == 0) {
        e->seq = seq;
        e->data = data;
        atomic_store_explicit(&e->count, 1, memory_order_relaxed);
        dsm_mutex_unlock(&e->lock);
        fj_wait_at_least_about(&e->count, members, "the other threads of "
                               "this node in a reduction",
                               DSM_ACTIVITY_ABOUT_PARTIAL, team->region, seq);
        dsm_mutex_lock(&e->lock);
        e->seq = 0;
        dsm_mutex_unlock(&e->lock);
        return 1;
    }
    combine(e->data, data);
    uint32_t n = atomic_fetch_add_explicit(&e->count, 1,
                                           memory_order_acq_rel) + 1;
    dsm_mutex_unlock(&e->lock);
    if (n == members)
        fj_wake_all(&e->count);
    return 0;
}

/* Offsets of the variables in a packed partial result (each 16-byte
 * aligned) and its length; 0 when they do not fit the partials path. */
static size_t pack_layout(int nvars, const uint64_t *sizes, size_t *off)
{
    if (nvars < 1 || nvars > RED_MAX_VARS)
        return 0;
    size_t len = 0;
    for (int i = 0; i < nvars; i++) {
        len = (len + 15) & ~(size_t)15;
        if (sizes[i] == 0 || sizes[i] > FJ_RED_MAX_BYTES - len)
            return 0;
        off[i] = len;
        len += sizes[i];
    }
    return len;
}

static __thread _Alignas(16) unsigned char red_packed[FJ_RED_MAX_BYTES];

/* The holder's side of the partials path; returns what it gets. */
static int reduce_by_partials(fj_team_t *team, uint64_t seq, void *data,
                              combine_fn combine, int nvars,
                              const uint64_t *sizes, const size_t *off,
                              size_t len)
{
    void **mine = data;
    uint64_t tag = (team->region & 0xffffffffu) << 32;
    if (fj.rank != 0) {
        /* private: fj_partials_send copies it under a lock handlers
         * take, and may hand it to the transport */
        unsigned char *packed = red_packed;
        for (int i = 0; i < nvars; i++)
            __builtin_memcpy(packed + off[i], mine[i], sizes[i]);
        if (seq - fj_self()->reductions_safe > FJ_RED_SLOTS)
            fj_word_wait_at_least(FJ_WORD(red_done),
                                  tag | (seq - FJ_RED_SLOTS));
        fj_partials_send(team->region, seq, packed, len);
        return 0;
    }
    void *theirs[RED_MAX_VARS];
    for (int src = 1; src < team->nodes; src++) {
        const unsigned char *bytes =
            fj_partials_wait(src, team->region, seq, len);
        for (int i = 0; i < nvars; i++)
            theirs[i] = (void *)(bytes + off[i]);
        combine(data, theirs);
        fj_partials_release(src, seq);
    }
    __atomic_store_n(&fj.control->red_done, tag | seq, __ATOMIC_RELEASE);
    return 1;
}

int fj_reduce_begin(void *data, combine_fn combine, const void *key,
                    int nvars, const uint64_t *sizes)
{
    fj_thread_t *self = fj_self();
    if (fj_alone(self))
        return 1;
    fj_team_t *team = self->team;
    uint64_t seq = ++self->reductions;
    if (!combine_in_node(team, seq, data, combine))
        return 0;
    if (team->nodes == 1 && !team->parent)
        return 1;           /* the only team: nobody else combines */

    size_t off[RED_MAX_VARS], len;
    if (team->nodes > 1 && sizes &&
        (len = pack_layout(nvars, sizes, off)) != 0)
        return reduce_by_partials(team, seq, data, combine, nvars, sizes,
                                  off, len);
    /* across nodes without sizes, or a nested team: see the file header */
    fj_named_lock(key, "reduction");
    self->red_locked = 1;
    return 1;
}

void fj_reduce_end(const void *key)
{
    fj_thread_t *self = fj_self();
    if (!self->red_locked)
        return;
    self->red_locked = 0;
    fj_named_unlock(key, "reduction");
}
