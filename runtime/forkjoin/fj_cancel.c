/*
 * fj_cancel.c - cancellation (OMP_CANCELLATION=true): cancel and
 * cancellation points for parallel, for, sections and taskgroup, the
 * cancellation barrier, and the end of a cancelled region across nodes
 * (doc/design.md, "Cancellation").
 *
 * Activation.  A team keeps, on each node, the region whose parallel
 * cancellation is active and the cancelled work-sharing construct, named
 * by the barriers its members met before it (a loop or sections that is
 * cancelled has no nowait, so every member meets the same number; the
 * next barrier makes the name stale, which is how cancellation of a
 * construct ends).  The first thread of a node to activate one sends
 * CANCEL to the team's other nodes, whose handler records it: a
 * cancellation point then only reads a word of its own node, never
 * another node's.  Tags, not resets: a CANCEL may arrive before the node
 * has taken the region's FORK.  Taskgroups live on the node of their
 * tasks (fj_task.c), so cancel taskgroup is a flag of the taskgroup; a
 * task of a cancelled taskgroup (or region) that has not started is
 * discarded when a thread takes it.
 *
 * The end of a cancelled region.  Members that went to the end early
 * would leave the others waiting in a barrier they never reach.  So, with
 * cancellation enabled, a member whose implicit task returned stays in
 * the team's barriers as a proxy (fj_cancel_member_end) until every
 * member of its node has ended; that last generation takes no cluster
 * barrier.  Between nodes the numbers of cluster barriers taken may then
 * differ, and a node may even be inside one that the others will never
 * reach.  Node 0's word cancel_state settles it; each node's leader, once
 * its members ended (fj_cancel_region_end), compare-and-swaps it:
 *   - a node that ended without knowing of any cancellation (the region
 *     not cancelled, or not yet) records its count: it took every
 *     barrier of the region ("plain");
 *   - a node that knows of a cancellation after a plain end catches up
 *     to the plain count with empty cluster barriers: no node can be past
 *     it;
 *   - otherwise the region is cancelled and no plain end can follow: each
 *     node counts itself ended and takes empty cluster barriers (freeing
 *     any node inside one) until the last node to end names, in
 *     cancel_final, the barrier after its own count, which every node is
 *     then in; all leave after it.
 * Then the join as usual.  Node 0, after the join, restarts the loop and
 * single numbering a long way ahead (members met different numbers of
 * them) and resets the loop slots.  The activating thread marks
 * cancel_state too, so that a cancellation barrier after it can tell
 * every member, on every node, that the region is cancelled.
 *
 * Costs with OMP_CANCELLATION=true: a compare-and-swap on node 0's word
 * at each region's end per node, a read of it at each cancellation
 * barrier, one node-local barrier generation at each region's end.
 * Cancellation points read a word of their node (and, without a progress
 * thread, poll the transport at every 256th: nothing else would deliver
 * a CANCEL to a node whose threads are all in their own code).
 * Disabled: nothing.
 *
 * Layer: forkjoin.  Entry points: fj_cancellation, fj_cancel,
 * fj_cancellation_point, fj_cancel_barrier (members of a region, lone
 * threads, tasks), and the hooks of fj_cancel.h.  The CANCEL handler only
 * stores atomically.
 */
#include "fj_cancel.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base_config.h"
#include "base_log.h"
#include "fj_internal.h"
#include "fj_loops.h"
#include "fj_task.h"
#include "fj_wire.h"
#include "fj_words.h"
#include "transport.h"

/* ---- cancel-var ----------------------------------------------------------- */

static int enabled = -1;

static void load_enabled(void)
{
    const char *v = getenv("OMP_CANCELLATION");
    int on = 0;
    if (v && *v) {
        if (!strcasecmp(v, "true") || !strcmp(v, "1"))
            on = 1;
        else if (strcasecmp(v, "false") && strcmp(v, "0"))
            dsm_fatal("OMP_CANCELLATION=%s: expected true or false", v);
    }
    __atomic_store_n(&enabled, on, __ATOMIC_RELAXED);
}

int fj_cancel_enabled(void)
{
    int on = __atomic_load_n(&enabled, __ATOMIC_RELAXED);
    if (__builtin_expect(on < 0, 0)) {
        load_enabled();          /* the same answer in every thread */
        on = enabled;
    }
    return on;
}

int fj_cancellation(void) { return fj_cancel_enabled(); }

/* ---- names of what is cancelled -------------------------------------------- */

/* The current region of a team: the cluster's team has region numbers
 * (1, 2, ...); a team inside one node is reset at each region (1). */
static uint64_t team_tag(const fj_team_t *team)
{
    return team->words ? 1 : team->region;
}

/* A work-sharing construct: region, the barriers before it, the kind. */
static uint64_t ws_key(uint64_t tag, uint64_t epoch, int kind)
{
    return ((tag & 0x3fffffffu) << 34) | ((epoch & 0xffffffffu) << 2) |
           (kind == FJ_CANCEL_LOOP ? 1u : 2u);
}

/* *word = max(*word, value); returns 1 when this call raised it. */
static int raise_to(_Atomic uint64_t *word, uint64_t value)
{
    uint64_t cur = atomic_load(word);
    while (cur < value)
        if (atomic_compare_exchange_weak(word, &cur, value))
            return 1;
    return 0;
}

static int parallel_cancelled(const fj_team_t *team)
{
    return atomic_load_explicit(&team->cancel.parallel,
                                memory_order_acquire) == team_tag(team);
}

/* The cluster's team across nodes (a team inside one node, or the
 * cluster's on one node, needs no message and no node 0 word). */
static int spans_nodes(const fj_team_t *team)
{
    return !team->words && team->nodes > 1;
}

/* ---- node 0's cancel_state word ---------------------------------------------
 * region (17 bits) | cancelled | plain | ended nodes (13 bits) | count (32):
 * cancelled: some member activated the region's parallel cancellation;
 * plain: a node ended without knowing of one, after count cluster
 * barriers; ended: nodes that ended knowing of it.  The region tag wraps
 * after 2^17 regions, each of which rewrites the word. */
#define ST_COUNT_MASK   0xffffffffull
#define ST_ENDED_SHIFT  32
#define ST_ENDED_MASK   0x1fffull
#define ST_PLAIN        (1ull << 45)
#define ST_CANCELLED    (1ull << 46)
#define ST_REGION_SHIFT 47
#define ST_REGION_MASK  0x1ffffull

/* DSM_SIZE is at most 4096 (base_config.c) */
_Static_assert(4096 <= ST_ENDED_MASK, "cancel_state counts every node");

static uint64_t state_of(uint64_t word, uint64_t region)
{
    uint64_t tag = region & ST_REGION_MASK;
    if ((word >> ST_REGION_SHIFT) != tag)
        return tag << ST_REGION_SHIFT;       /* nothing recorded yet */
    return word;
}

static uint64_t final_of(uint64_t region, uint64_t barrier)
{
    return ((region & 0xffffffffu) << 32) | (barrier & 0xffffffffu);
}

static void state_mark_cancelled(uint64_t region)
{
    const size_t off = FJ_WORD(cancel_state);
    uint64_t seen = fj_word_load(off);
    for (;;) {
        uint64_t cur = state_of(seen, region);
        if (cur & ST_CANCELLED)
            return;
        uint64_t got = fj_word_cswap(off, seen, cur | ST_CANCELLED);
        if (got == seen)
            return;
        seen = got;
    }
}

static int state_says_cancelled(uint64_t region)
{
    return (state_of(fj_word_load(FJ_WORD(cancel_state)), region) &
            ST_CANCELLED) != 0;
}

/* ---- CANCEL messages ----------------------------------------------------------- */

static __thread fj_wire_cancel_t out_msg;   /* private memory, not a stack */

static void on_cancel(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    fj_wire_cancel_t m;
    if (fj_wire_cancel(payload, len, &m) != DSM_OK)
        dsm_fatal("malformed CANCEL message from node %d (%zu bytes)", src,
                  len);
    fj_cancel_team_t *c = &fj.team.cancel;
    if (m.kind == FJ_CANCEL_PARALLEL)
        raise_to(&c->parallel, m.region);
    else
        raise_to(&c->ws, ws_key(m.region, m.epoch, m.kind));
}

void fj_cancel_register(void)
{
    (void)fj_cancel_enabled();
    if (dsm_tp_am_register(DSM_TP_AM_FORKJOIN, FJ_AM_CANCEL, on_cancel, NULL) != DSM_OK)
        dsm_fatal("cannot register the CANCEL message");
}

static void tell_team(const fj_team_t *team, int kind, uint64_t epoch)
{
    out_msg = (fj_wire_cancel_t){team->region, (uint32_t)epoch, kind};
    for (int node = 0; node < team->nodes; node++) {
        if (node == fj.rank)
            continue;
        dsm_status_t st = dsm_tp_am_send(node, FJ_AM_CANCEL, &out_msg,
                                         sizeof out_msg);
        if (st != DSM_OK)
            dsm_fatal("telling node %d of a cancellation: %s", node,
                      dsm_status_string(st));
    }
}

/* ---- cancel, cancellation point ------------------------------------------------ */

static fj_taskgroup_t *current_taskgroup(void)
{
    fj_task_thread_t *me = fj_task_me_or_null();
    return me && me->current ? me->current->group : NULL;
}

static int cancel_parallel(fj_thread_t *self)
{
    fj_team_t *team = self->team;
    if (parallel_cancelled(team))
        return 1;
    if (spans_nodes(team))
        state_mark_cancelled(team->region);   /* before anyone may look */
    if (raise_to(&team->cancel.parallel, team_tag(team)) && spans_nodes(team))
        tell_team(team, FJ_CANCEL_PARALLEL, 0);
    return 1;
}

static int cancel_worksharing(fj_thread_t *self, int kind)
{
    fj_team_t *team = self->team;
    uint64_t key = ws_key(team_tag(team), self->barriers, kind);
    uint64_t cur = atomic_load(&team->cancel.ws);
    for (;;) {
        if (cur >> 2 == key >> 2) {
            if (cur != key)
                return 0;        /* the construct is of the other kind */
            break;               /* cancelled already */
        }
        if (cur > key)
            return 0;            /* a later construct: cannot be ours */
        if (atomic_compare_exchange_weak(&team->cancel.ws, &cur, key)) {
            if (spans_nodes(team))
                tell_team(team, kind, self->barriers);
            break;
        }
    }
    if (kind == FJ_CANCEL_LOOP)
        fj_dispatch_abandon(self);
    return 1;
}

int fj_cancel(int kind)
{
    if (kind < FJ_CANCEL_PARALLEL || kind > FJ_CANCEL_TASKGROUP)
        dsm_fatal("cancel of an unknown construct kind %d", kind);
    if (!fj_cancel_enabled())
        return 0;
    if (kind == FJ_CANCEL_TASKGROUP) {
        fj_taskgroup_t *g = current_taskgroup();
        if (!g)
            dsm_fatal("cancel taskgroup outside a taskgroup region");
        atomic_store(&g->cancelled, 1);
        return 1;
    }
    fj_thread_t *self = fj_self();
    if (fj_alone(self))
        return 1;                /* a team of one: only this thread */
    if (kind == FJ_CANCEL_PARALLEL)
        return cancel_parallel(self);
    return cancel_worksharing(self, kind);
}

/* Without a progress thread a CANCEL is delivered only when a thread of
 * the node polls the transport, and threads between cancellation points
 * in their own code never do: every POLL_EVERY-th cancellation point of
 * a team across nodes polls once (about a microsecond). */
#define POLL_EVERY 256u

static void poll_now_and_then(void)
{
    static __thread unsigned points;
    if (++points % POLL_EVERY == 0 && !dsm_config()->progress_thread)
        (void)dsm_tp_progress();
}

int fj_cancellation_point(int kind)
{
    if (kind < FJ_CANCEL_PARALLEL || kind > FJ_CANCEL_TASKGROUP)
        dsm_fatal("cancellation point of an unknown construct kind %d",
                  kind);
    if (!fj_cancel_enabled())
        return 0;
    if (kind == FJ_CANCEL_TASKGROUP) {
        fj_taskgroup_t *g = current_taskgroup();
        return g && atomic_load(&g->cancelled);
    }
    fj_thread_t *self = fj_self();
    if (fj_alone(self))
        return 0;
    fj_team_t *team = self->team;
    if (spans_nodes(team))
        poll_now_and_then();
    if (kind == FJ_CANCEL_PARALLEL)
        return parallel_cancelled(team);
    uint64_t key = ws_key(team_tag(team), self->barriers, kind);
    if (atomic_load_explicit(&team->cancel.ws, memory_order_acquire) != key)
        return 0;
    if (kind == FJ_CANCEL_LOOP)
        fj_dispatch_abandon(self);
    return 1;
}

int fj_cancel_barrier(void)
{
    fj_thread_t *self = fj_self();
    if (fj_alone(self)) {
        fj_barrier();
        return 0;
    }
    fj_team_t *team = self->team;
    if (!fj_cancel_enabled()) {
        fj_team_barrier(self);
        return 0;
    }
    /* going to the end at once: this thread's proxy arrivals complete
     * the barriers the others wait in */
    if (parallel_cancelled(team))
        return 1;
    fj_team_barrier(self);
    if (parallel_cancelled(team))
        return 1;
    /* activated on a node whose CANCEL has not arrived yet: it marked
     * node 0's word before it could complete this barrier */
    if (spans_nodes(team) && state_says_cancelled(team->region)) {
        raise_to(&team->cancel.parallel, team->region);
        return 1;
    }
    return 0;
}

/* ---- hooks ------------------------------------------------------------------ */

void fj_cancel_team_setup(fj_team_t *team)
{
    atomic_store(&team->cancel.ended, 0);
    atomic_store(&team->cancel.done, 0);
    team->cancel.global = 0;
}

void fj_cancel_team_open_nested(fj_team_t *team)
{
    fj_doacross_forget_team(team);
    atomic_store(&team->cancel.parallel, 0);
    atomic_store(&team->cancel.ws, 0);
    fj_cancel_team_setup(team);
}

void fj_cancel_member_end(fj_thread_t *self)
{
    if (!fj_cancel_enabled())
        return;
    fj_team_t *team = self->team;
    atomic_fetch_add(&team->cancel.ended, 1);
    while (!atomic_load_explicit(&team->cancel.done, memory_order_acquire))
        fj_team_barrier(self);
}

int fj_cancel_barrier_last(fj_team_t *team)
{
    if (!fj_cancel_enabled())
        return 0;
    if (atomic_load(&team->cancel.ended) == (uint32_t)team->local_count) {
        /* every member is here, as a proxy: no one uses a loop instance
         * that a member skipped */
        if (parallel_cancelled(team))
            fj_dispatch_forget(team);
        atomic_store_explicit(&team->cancel.done, 1, memory_order_release);
        return 1;
    }
    if (team->nodes > 1)
        team->cancel.global++;
    return 0;
}

uint64_t fj_cancel_region_end(fj_thread_t *self)
{
    fj_team_t *team = &fj.team;
    if (!fj_cancel_enabled())
        return self->barriers;
    uint64_t count = team->cancel.global;
    if (team->nodes < 2)
        return count;
    const uint64_t region = team->region;
    const size_t off = FJ_WORD(cancel_state);
    int knowing = parallel_cancelled(team);
    uint64_t seen = fj_word_load(off), cur, next = 0;
    enum { PLAIN, CATCH_UP, CANCELLED } mode;
    for (;;) {
        cur = state_of(seen, region);
        if (cur & ST_PLAIN) {
            mode = CATCH_UP;     /* nothing to record */
            break;
        }
        if (knowing || (cur & ST_CANCELLED)) {
            mode = CANCELLED;
            next = (cur | ST_CANCELLED) + (1ull << ST_ENDED_SHIFT);
        } else {
            mode = PLAIN;
            next = (cur & ~ST_COUNT_MASK) | ST_PLAIN | (count & ST_COUNT_MASK);
        }
        uint64_t got = fj_word_cswap(off, seen, next);
        if (got == seen)
            break;
        seen = got;
    }
    if (mode == CATCH_UP) {
        uint64_t target = cur & ST_COUNT_MASK;
        if ((count & ST_COUNT_MASK) > target)
            dsm_fatal("cancelled parallel region: node %d took %llu cluster "
                      "barriers, more than the %llu of a node that ran it to "
                      "the end", fj.rank, (unsigned long long)count,
                      (unsigned long long)target);
        while ((count & ST_COUNT_MASK) < target) {
            fj_global_barrier();
            count++;
        }
    } else if (mode == CANCELLED) {
        uint64_t ended = (next >> ST_ENDED_SHIFT) & ST_ENDED_MASK;
        if (ended == (uint64_t)team->nodes) {
            /* every other node is in the barrier after our count */
            fj_word_swap(FJ_WORD(cancel_final), final_of(region, count + 1));
            fj_global_barrier();
            count++;
        } else {
            do {
                fj_global_barrier();
                count++;
            } while (fj_word_load(FJ_WORD(cancel_final)) !=
                     final_of(region, count));
        }
    }
    team->cancel.global = count;
    return count;
}

int fj_cancel_after_region(fj_thread_t *self)
{
    (void)self;
    if (!fj_cancel_enabled())
        return 0;
    fj_team_t *team = &fj.team;
    int cancelled = parallel_cancelled(team) ||
                    (team->nodes > 1 && state_says_cancelled(team->region));
    if (!cancelled)
        return 0;
    /* members met different numbers of loops and singles: number the next
     * region's far beyond any of them, with clean loop slots */
    fj.loop_base += 1ull << 32;
    fj.single_base += 1ull << 32;
    fj_dispatch_reset_slots(fj.loop_base);
    return 1;
}

int fj_cancel_loop_cancelled(fj_thread_t *self)
{
    if (!fj_cancel_enabled() || fj_alone(self))
        return 0;
    fj_team_t *team = self->team;
    return atomic_load_explicit(&team->cancel.ws, memory_order_acquire) ==
           ws_key(team_tag(team), self->barriers, FJ_CANCEL_LOOP);
}

int fj_cancel_task_discarded(fj_task_t *t)
{
    if (!fj_cancel_enabled())
        return 0;
    if (t->member_of && atomic_load(&t->member_of->cancelled))
        return 1;
    fj_thread_t *self = fj_self_or_null();
    return self && !fj_alone(self) && parallel_cancelled(self->team);
}

int fj_cancel_parallel_active(fj_thread_t *self)
{
    return fj_cancel_enabled() && !fj_alone(self) &&
           parallel_cancelled(self->team);
}
