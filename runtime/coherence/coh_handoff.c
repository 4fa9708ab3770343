/*
 * coh_handoff.c - a one-way release/acquire between one node and the
 * others, without a barrier: the node closes its interval and exports the
 * write-notice records of its own intervals since the last barrier into a
 * buffer (which the caller sends, e.g. inside a fork message); a receiver
 * imports it: invalidates what the records name and merges the sender's
 * vector time.  Fork-join uses it at a fork, when only node 0 has run since
 * the last barrier, so node 0's records are everything the others miss.
 *
 * Buffer format: coh_msg_handoff_t, then write-notice records as in a
 * barrier arrival (coh_msg.h), decoded by coh_wire_handoff.  overflow:
 * the records did not fit (or the log no longer holds them); the receiver
 * invalidates every page instead.
 *
 * After a one-way join (dsm_coh_join) the handoff also completes it: the
 * export carries node 0's held departure after its records when it fits
 * (else sends it first as its own message), and the import applies it
 * first (or waits for it), then the handoff's own notices.
 *
 * Node 0's hand-off is a push event as a departure is (coh_push.c): after
 * the departure come the small changes of the pages its records name, so
 * that the readers keep their copies of the page of the region's
 * arguments instead of fetching it again at the region's start.
 *
 * Layer: coherence.  Entry points: dsm_coh_handoff_export,
 * dsm_coh_handoff_import (coherence.h).  Application threads, outside the
 * fault handler; both run on the private runtime stack (a release must not
 * run on a sharable stack) under the protocol mutex.
 */
#include <string.h>

#include "base_log.h"
#include "coh_protocol.h"
#include "coh_sharing.h"
#include "coh_stats.h"
#include "coh_state.h"
#include "coh_wire.h"
#include "coherence.h"
#include "sys_stack.h"

typedef struct handoff_call {
    void *buf;
    const void *cbuf;
    size_t cap, len;
    int from;
    dsm_status_t status;
} handoff_call_t;

static void export_body(void *arg)
{
    handoff_call_t *c = arg;
    char *out = c->buf;
    coh_protocol_lock();
    /* only the forking thread runs (fork-join's promise) */
    coh_release(coh_barriers_quiescent());
    coh_prefetch_epoch(coh_prefetch_pending());
    int me = coh.rank;
    coh_msg_handoff_t hdr = {(uint32_t)me, coh.vc[me], 0, 0, 0, 0};
    int overflow;
    size_t len = coh_own_records(out + sizeof hdr, c->cap - sizeof hdr,
                                 &hdr.nrecords, &overflow);
    hdr.overflow = (uint32_t)overflow;
    /* a departure held since the last join goes along when it fits */
    hdr.depart_len = (uint32_t)coh_join_embed(out + sizeof hdr + len,
                                              c->cap - sizeof hdr - len);
    /* the small changes of node 0's pages these records name, after the
     * departure (applied in that order) */
    size_t at = sizeof hdr + len + hdr.depart_len;
    if (!overflow)
        hdr.push_len = (uint32_t)coh_push_build(
            out + sizeof hdr, len, hdr.nrecords, COH_PUSH_FORK, NULL, NULL,
            out + at, c->cap - at);
    coh_protocol_unlock();
    memcpy(out, &hdr, sizeof hdr);
    c->len = at + hdr.push_len;
    c->status = DSM_OK;
}

dsm_status_t dsm_coh_handoff_export(void *buf, size_t cap, size_t *len)
{
    if (!coh.initialized)
        return DSM_ERR_STATE;
    if (cap < DSM_COH_HANDOFF_MIN)
        return DSM_ERR_INVALID;
    handoff_call_t c = {.buf = buf, .cap = cap};
    COH_STAT_ADD(parallel_regions, 1);
    coh_sharing_fork();     /* on the master's stack: it records it */
    dsm_sys_on_rtstack(export_body, &c);
    if (c.status == DSM_OK)
        *len = c.len;
    return c.status;
}

static void import_body(void *arg)
{
    handoff_call_t *c = arg;
    const coh_wire_limits_t lim = {(uint32_t)coh.size, coh.npages,
                                   COH_MAX_SLOTS};
    coh_wire_handoff_t h;
    c->status = DSM_ERR_INVALID;
    /* checked whole before anything is touched; the ranges are read in
     * place, so the buffer must be aligned (records are u32 fields) */
    if ((uintptr_t)c->cbuf % _Alignof(coh_range_t) != 0 ||
        coh_wire_handoff(c->cbuf, c->len, &lim, &h) != DSM_OK ||
        (int)h.hdr.creator != c->from || c->from == coh.rank)
        return;
    coh_protocol_lock();
    /* the join's departure first: in the handoff, or its own message */
    coh_join_finish_with(h.depart, h.hdr.depart_len);
    /* a push event on every node, as a departure (coh_push.c) */
    coh_push_begin();
    if (h.hdr.overflow) {
        coh_invalidate_all();
    } else {
        coh_push_apply(h.push, h.hdr.push_len);
        coh_acquire_records(h.records, h.hdr.nrecords, 1);
    }
    coh_push_end();
    if (h.hdr.vc_creator > coh.vc[h.hdr.creator])
        coh.vc[h.hdr.creator] = h.hdr.vc_creator;
    coh_prefetch_epoch(coh_prefetch_pending());
    coh_protocol_unlock();
    c->status = DSM_OK;
}

dsm_status_t dsm_coh_handoff_import(int from, const void *buf, size_t len)
{
    if (!coh.initialized)
        return DSM_ERR_STATE;
    if (from < 0 || from >= coh.size)
        return DSM_ERR_INVALID;
    handoff_call_t c = {.cbuf = buf, .len = len, .from = from};
    COH_STAT_ADD(parallel_regions, 1);
    coh_sharing_fork();
    dsm_sys_on_rtstack(import_body, &c);
    return c.status;
}
