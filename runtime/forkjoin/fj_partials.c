/*
 * fj_partials.c - the partial results of a reduction, sent by every other
 * node to node 0 in one active message (REDUCE), so that node 0 alone
 * combines into the shared variables: no cluster lock, no page round trip.
 *
 * Node 0 keeps FJ_RED_SLOTS slots per source node, filled by the handler and
 * emptied by node 0's combining thread.  A node reuses a slot only when it
 * knows node 0 emptied it: after a team barrier (node 0 empties a
 * reduction's slots before it arrives at the next barrier), or after
 * reading node 0's red_done word (fj_reduce.c).  A message for a full slot
 * is therefore a protocol error.
 *
 * Deferred partials.  Where a message to node 0 crosses the network (no
 * same-host lane), a send costs the sender some microseconds of its own
 * time (7-8 us over TCP between namespace hosts: the kernel's whole path
 * runs in the send), and a region with a reduction sent two in a row,
 * REDUCE then its barrier or join arrival.  So such a node keeps its
 * latest partial result back and attaches it to its next arrival, at a
 * barrier or at the region's join (the extra bytes of dsm_coh_barrier_with
 * and dsm_coh_join), which node 0 takes like a REDUCE: an `omp for
 * reduction` is then one message each way, as an allreduce.  Node
 * 0's holder waits for it inside the reduction, so a kept partial must
 * not wait for long: it is sent on its own before anything else that
 * could make this node wait for node 0 (fj_partials_flush: locks, waits
 * on node 0's words, the next reduction), and at once when node 0
 * asks for it (PULL, after PULL_AFTER_NS of waiting: a node computing
 * long after a nowait reduction).  A PULL may arrive before the partial
 * it asks for is made (this node was slow to reach the reduction, under
 * load say): it is remembered, and that partial then goes at once.  The
 * PULL is served by whichever thread progresses, the progress thread
 * when the application threads compute or spin in user code, so node 0
 * never depends on this node's application threads calling the runtime
 * (design.md, "Waits that need another node").  Nodes on lanes send at
 * once: there a message costs tens of nanoseconds; so do nodes without a
 * progress thread (DSM_PROGRESS_THREAD=0), where nobody would answer.
 *
 * Layer: forkjoin.  fj_partials_register: start-up, before the transport
 * starts.  fj_partials_send: the combining thread of a node other than 0.
 * fj_partials_flush: any thread of such a node before it may wait for
 * node 0; fj_partials_take: the thread doing its global barrier or join
 * part.
 * fj_partials_wait / fj_partials_release: node 0's combining thread.  The
 * handlers copy and set a flag, or send: no malloc, no stdio, never
 * block.
 *
 * kept.lock is taken by the PULL handler, which may run in any wait of
 * the thread that holds it (its fault handler's included): it is held
 * over private memory only, never over a sharable stack, so the copies
 * in and out of kept.msg go through thread-local buffers, which are also
 * what the transport is handed (design.md, "Locks and their order").
 */
#include "fj_partials.h"

#include <stdlib.h>
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "coherence.h"
#include "sys_region.h"
#include "fj_internal.h"
#include "fj_wait.h"
#include "fj_wire.h"
#include "transport.h"

/* on the wire: u64 region, u64 reduction number, the bytes (fj_wire.h) */
typedef struct partial_head {
    uint64_t region;
    uint64_t seq;
} partial_head_t;

typedef struct partial_slot {
    volatile int full;       /* set by the handler (release) */
    uint32_t len;
    uint64_t region, seq;
    _Alignas(16) unsigned char bytes[FJ_RED_MAX_BYTES];
} partial_slot_t;

static partial_slot_t *slots;          /* [size][FJ_RED_SLOTS], node 0 */

/* Nodes other than 0: the partial result kept back for the join. */
#define PULL_AFTER_NS 200000ull
static struct {
    dsm_mutex_t lock;
    int pending;
    size_t len;                        /* head and bytes */
    _Alignas(16) unsigned char msg[sizeof(partial_head_t) + FJ_RED_MAX_BYTES];
    /* a PULL that found nothing to send: the partial it names goes at
     * once when it is made */
    int pulled;
    partial_head_t pulled_head;
} kept;

/* The calling thread's private copies (see the file header): a partial
 * taken out of kept for the join, for a flush, or pushed out by a newer
 * one; the head of a partial sent in parts; node 0's PULL request. */
static __thread _Alignas(16) unsigned char taken_for_join[sizeof kept.msg];
static __thread _Alignas(16) unsigned char taken_for_flush[sizeof kept.msg];
static __thread _Alignas(16) unsigned char taken_older[sizeof kept.msg];
static __thread partial_head_t head_out;
static __thread partial_head_t pull_out;

static partial_slot_t *slot_of(int src, uint64_t seq)
{
    return &slots[(size_t)src * FJ_RED_SLOTS + seq % FJ_RED_SLOTS];
}

/* Node 0: a partial result arrived, in a REDUCE or with a join arrival. */
static void take_partial(int src, const void *payload, size_t len)
{
    fj_wire_partial_t p;
    if (fj.rank != 0 || src <= 0 || src >= fj.size ||
        fj_wire_partial(payload, len, &p) != DSM_OK)
        dsm_fatal("malformed REDUCE message from node %d (%zu bytes)", src,
                  len);
    partial_slot_t *s = slot_of(src, p.seq);
    if (__atomic_load_n(&s->full, __ATOMIC_ACQUIRE))
        dsm_fatal("REDUCE message from node %d for reduction %llu while "
                  "reduction %llu is not combined yet", src,
                  (unsigned long long)p.seq, (unsigned long long)s->seq);
    s->region = p.region;
    s->seq = p.seq;
    s->len = (uint32_t)p.len;
    memcpy(s->bytes, p.bytes, p.len);
    __atomic_store_n(&s->full, 1, __ATOMIC_RELEASE);
}

static void on_partial(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    take_partial(src, payload, len);
}

static void send_reduce(const void *msg, size_t len)
{
    dsm_status_t st = dsm_tp_am_send(0, FJ_AM_REDUCE, msg, len);
    if (st != DSM_OK)
        dsm_fatal("sending a reduction's partial result to node 0: %s",
                  dsm_status_string(st));
}

static void send_reduce_parts(const partial_head_t *head, const void *bytes,
                              size_t len)
{
    dsm_status_t st = dsm_tp_am_sendv(0, FJ_AM_REDUCE, head, sizeof *head,
                                      bytes, len);
    if (st != DSM_OK)
        dsm_fatal("sending a reduction's partial result to node 0: %s",
                  dsm_status_string(st));
}

/* Take the kept partial out into msg (room for kept.msg); its length, or
 * 0 when none is kept.  Under kept_lock. */
static size_t take_kept_locked(void *msg)
{
    DSM_INVARIANT(!dsm_sys_sharable(msg, sizeof kept.msg),
                  "kept.lock held over sharable memory");
    if (!kept.pending)
        return 0;
    memcpy(msg, kept.msg, kept.len);
    kept.pending = 0;
    return kept.len;
}

static size_t take_kept(void *msg)
{
    dsm_mutex_lock(&kept.lock);
    size_t len = take_kept_locked(msg);
    dsm_mutex_unlock(&kept.lock);
    return len;
}

/* A node other than 0, asked by node 0 for a partial it keeps. */
static void on_pull(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    fj_wire_partial_t want;
    if (fj.rank == 0 || src != 0 ||
        fj_wire_partial(payload, len, &want) != DSM_OK || want.len != 0)
        dsm_fatal("malformed PULL message from node %d (%zu bytes)", src,
                  len);
    _Alignas(16) unsigned char msg[sizeof kept.msg];
    partial_head_t head = {want.region, want.seq};
    size_t n = 0;
    dsm_mutex_lock(&kept.lock);
    if (kept.pending && memcmp(kept.msg, &head, sizeof head) == 0) {
        n = take_kept_locked(msg);
    } else {
        /* not made yet (or already sent: then this never matches) */
        kept.pulled = 1;
        kept.pulled_head = head;
    }
    dsm_mutex_unlock(&kept.lock);
    if (n)   /* from a handler: sent or queued, never waits */
        send_reduce(msg, n);
}

void fj_partials_flush(void)
{
    if (!__atomic_load_n(&kept.pending, __ATOMIC_RELAXED))
        return;
    size_t n = take_kept(taken_for_flush);
    if (n)
        send_reduce(taken_for_flush, n);
}

const void *fj_partials_take(size_t *len)
{
    *len = __atomic_load_n(&kept.pending, __ATOMIC_RELAXED)
               ? take_kept(taken_for_join) : 0;
    return taken_for_join;
}

static void on_join_extra(int src, const void *bytes, size_t len)
{
    if (fj.rank != 0 || src <= 0 || src >= fj.size)
        dsm_fatal("a join arrival from node %d with a partial result sent "
                  "to node %d", src, fj.rank);
    take_partial(src, bytes, len);
}

void fj_partials_register(void)
{
    if (fj.rank == 0 && fj.size > 1) {
        slots = calloc((size_t)fj.size * FJ_RED_SLOTS, sizeof *slots);
        if (!slots)
            dsm_fatal("out of memory for the reduction slots");
    }
    if (dsm_tp_am_register(DSM_TP_AM_FORKJOIN, FJ_AM_REDUCE, on_partial,
                           NULL) != DSM_OK ||
        dsm_tp_am_register(DSM_TP_AM_FORKJOIN, FJ_AM_PULL, on_pull,
                           NULL) != DSM_OK)
        dsm_fatal("cannot register the reduction messages");
    dsm_coh_report_am_name(FJ_AM_REDUCE, "reduce");
    dsm_coh_report_am_name(FJ_AM_PULL, "pull");
    dsm_coh_join_extra_handler(on_join_extra);
}

void fj_partials_send(uint64_t region, uint64_t seq, const void *bytes,
                      size_t len)
{
    DSM_INVARIANT(!dsm_sys_sharable(bytes, len),
                  "a partial result in sharable memory");
    partial_head_t *head = &head_out;
    head->region = region;
    head->seq = seq;
    /* without a progress thread nobody would answer a PULL while this
     * node computes */
    if (dsm_tp_peer_on_lane(0) || !dsm_config()->progress_thread) {
        send_reduce_parts(head, bytes, len);
        return;
    }
    /* keep it for the join; one kept before goes now, and so does this
     * one if node 0 already asked for it */
    dsm_mutex_lock(&kept.lock);
    size_t n = take_kept_locked(taken_older);
    int asked = kept.pulled &&
                memcmp(&kept.pulled_head, head, sizeof *head) == 0;
    if (asked)
        kept.pulled = 0;
    else {
        memcpy(kept.msg, head, sizeof *head);
        memcpy(kept.msg + sizeof *head, bytes, len);
        kept.len = sizeof *head + len;
        kept.pending = 1;
    }
    dsm_mutex_unlock(&kept.lock);
    if (n)
        send_reduce(taken_older, n);
    if (asked)
        send_reduce_parts(head, bytes, len);
}

const void *fj_partials_wait(int src, uint64_t region, uint64_t seq,
                             size_t len)
{
    partial_slot_t *s = slot_of(src, seq);
    if (!dsm_tp_wait_flag_for(&s->full, "a reduction's partial result",
                              PULL_AFTER_NS)) {
        /* src may keep it for its join while it computes on */
        partial_head_t *want = &pull_out;
        want->region = region;
        want->seq = seq;
        dsm_status_t st = dsm_tp_am_send(src, FJ_AM_PULL, want,
                                         sizeof *want);
        if (st != DSM_OK)
            dsm_fatal("asking node %d for a partial result: %s", src,
                      dsm_status_string(st));
        dsm_tp_wait_flag_on(&s->full, "a reduction's partial result", src,
                            DSM_ACTIVITY_ABOUT_PARTIAL, region, seq);
    }
    if (s->region != region || s->seq != seq || s->len != len)
        dsm_fatal("node %d sent the partial result of reduction %llu of "
                  "region %llu (%u bytes); expected reduction %llu of region "
                  "%llu (%zu bytes)", src, (unsigned long long)s->seq,
                  (unsigned long long)s->region, s->len,
                  (unsigned long long)seq, (unsigned long long)region, len);
    return s->bytes;
}

void fj_partials_release(int src, uint64_t seq)
{
    __atomic_store_n(&slot_of(src, seq)->full, 0, __ATOMIC_RELEASE);
}
