/*
 * coh_handoff.c - a one-way release/acquire between one node and the
 * others, without a barrier: the node closes its interval and exports the
 * write-notice records of its own intervals since the last barrier into a
 * buffer (which the caller sends, e.g. inside a fork message); a receiver
 * imports it: invalidates what the records name and merges the sender's
 * vector time.  Fork-join uses it at a fork, when only node 0 has run since
 * the last barrier, so node 0's records are everything the others miss.
 *
 * Buffer format (this file's own; sender and receiver run the same code):
 *   handoff_hdr_t, then nrecords times { handoff_rec_t, nranges
 *   coh_range_t }.  overflow: the records did not fit (or the log no longer
 *   holds them); the receiver invalidates every page instead.
 *
 * Layer: coherence.  Entry points: dsm_coh_handoff_export,
 * dsm_coh_handoff_import (coherence.h).  Application threads, outside the
 * fault handler; both run on the private runtime stack (a release must not
 * run on a sharable stack) under the protocol mutex.
 */
#include <string.h>

#include "base_log.h"
#include "coh_protocol.h"
#include "coh_state.h"
#include "coherence.h"
#include "sys_stack.h"

typedef struct handoff_hdr {
    uint32_t creator;
    uint32_t vc_creator;     /* the creator's intervals, all included */
    uint32_t overflow;
    uint32_t nrecords;
} handoff_hdr_t;

typedef struct handoff_rec {
    uint32_t seq;
    uint32_t nranges;
} handoff_rec_t;

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
    coh_release();
    int me = coh.rank;
    handoff_hdr_t hdr = {(uint32_t)me, coh.vc[me], 0, 0};
    size_t len = sizeof hdr;
    for (uint32_t seq = coh.vc_at_barrier[me] + 1; seq <= coh.vc[me];
         seq++) {
        size_t n;
        const coh_range_t *r = coh_log_ranges(seq, &n);
        handoff_rec_t rec = {seq, (uint32_t)n};
        size_t need = sizeof rec + n * sizeof *r;
        if (!r || need > c->cap - len) {
            hdr.overflow = 1;
            break;
        }
        memcpy(out + len, &rec, sizeof rec);
        memcpy(out + len + sizeof rec, r, n * sizeof *r);
        len += need;
        hdr.nrecords++;
    }
    coh_protocol_unlock();
    if (hdr.overflow) {
        len = sizeof hdr;
        hdr.nrecords = 0;
    }
    memcpy(out, &hdr, sizeof hdr);
    c->len = len;
    c->status = DSM_OK;
}

dsm_status_t dsm_coh_handoff_export(void *buf, size_t cap, size_t *len)
{
    if (!coh.initialized)
        return DSM_ERR_STATE;
    if (cap < DSM_COH_HANDOFF_MIN)
        return DSM_ERR_INVALID;
    handoff_call_t c = {.buf = buf, .cap = cap};
    dsm_sys_on_rtstack(export_body, &c);
    if (c.status == DSM_OK)
        *len = c.len;
    return c.status;
}

/* Check the whole buffer before touching anything. */
static int well_formed(const char *buf, size_t len, const handoff_hdr_t *hdr)
{
    size_t pos = sizeof *hdr;
    for (uint32_t k = 0; k < hdr->nrecords; k++) {
        handoff_rec_t rec;
        if (len - pos < sizeof rec)
            return 0;
        memcpy(&rec, buf + pos, sizeof rec);
        pos += sizeof rec;
        if (rec.nranges > (len - pos) / sizeof(coh_range_t))
            return 0;
        pos += rec.nranges * sizeof(coh_range_t);
    }
    return pos == len;
}

static void import_body(void *arg)
{
    handoff_call_t *c = arg;
    const char *buf = c->cbuf;
    handoff_hdr_t hdr;
    c->status = DSM_ERR_INVALID;
    if (c->len < sizeof hdr)
        return;
    memcpy(&hdr, buf, sizeof hdr);
    if ((int)hdr.creator != c->from || c->from == coh.rank ||
        !well_formed(buf, c->len, &hdr))
        return;
    coh_protocol_lock();
    if (hdr.overflow) {
        coh_invalidate_all();
    } else {
        size_t pos = sizeof hdr;
        for (uint32_t k = 0; k < hdr.nrecords; k++) {
            handoff_rec_t rec;
            memcpy(&rec, buf + pos, sizeof rec);
            pos += sizeof rec;
            /* records this node already acted on (a lock, a barrier) */
            if (rec.seq > coh.vc[hdr.creator])
                coh_refresh_ranges((const coh_range_t *)(buf + pos),
                                   rec.nranges);
            pos += rec.nranges * sizeof(coh_range_t);
        }
    }
    if (hdr.vc_creator > coh.vc[hdr.creator])
        coh.vc[hdr.creator] = hdr.vc_creator;
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
    dsm_sys_on_rtstack(import_body, &c);
    return c.status;
}
