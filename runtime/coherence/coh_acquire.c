/*
 * coh_acquire.c - the acquire side of lazy release consistency, in one
 * place: learning the write notices of intervals this node has not seen
 * and dropping (or refreshing) the copies they make stale, then advancing
 * the vector time.  Notices reach a node in two ways:
 *   pushed  - a barrier departure or a fork's handoff carries the records
 *             (coh_acquire_records);
 *   pulled  - a lock grant carries the releaser's vector time, a flush
 *             reads every node's published log head, and the node reads
 *             the records it lacks from their creators' logs with
 *             one-sided gets (coh_acquire_upto, coh_acquire_all).
 * Invariant kept by every path: the vector time is closed under
 * happens-before: holding interval s of node j implies holding every
 * interval j had seen when it published s (the log's deps vector), so a
 * pull only needs the deps of intervals newer than what it holds.
 *
 * Layer: coherence.  Application threads, under the protocol mutex, on a
 * private runtime stack; never from the fault handler or a message
 * handler.
 */
#include <stddef.h>
#include <string.h>

#include "base_log.h"
#include "coh_protocol.h"
#include "coh_sharing.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "coh_wire.h"
#include "coherence.h"
#include "sys_stack.h"
#include "transport.h"

static coh_range_t *pull_buffer;          /* ranges read from other nodes */
static coh_log_interval_t *pull_headers;

dsm_status_t coh_acquire_setup(void)
{
    pull_buffer = coh_table_alloc(sizeof(coh_range_t) * COH_LOG_RANGES);
    pull_headers = coh_table_alloc(sizeof(coh_log_interval_t) *
                                   COH_LOG_INTERVALS);
    return pull_buffer && pull_headers ? DSM_OK : DSM_ERR_NOMEM;
}

/* ---- pushed records ------------------------------------------------------ */

void coh_acquire_records(const unsigned char *records, uint32_t nrecords,
                         int refresh)
{
    size_t pos = 0;
    for (uint32_t k = 0; k < nrecords; k++) {
        coh_record_hdr_t rec;
        const unsigned char *ranges;
        coh_wire_record_next(records, &pos, &rec, &ranges);
        /* records this node made, or already acted on (a lock, a flush,
         * an earlier barrier); ranges are u32 fields of a buffer the
         * caller keeps 8-byte aligned */
        if ((int)rec.creator == coh.rank || rec.seq <= coh.vc[rec.creator])
            continue;
        if (refresh)
            coh_refresh_ranges((const coh_range_t *)(const void *)ranges,
                               rec.nranges);
        else
            coh_invalidate_ranges((const coh_range_t *)(const void *)ranges,
                                  rec.nranges);
    }
}

void coh_acquire_vc(const uint32_t *vc)
{
    for (int j = 0; j < coh.size; j++)
        if (vc[j] > coh.vc[j])
            coh.vc[j] = vc[j];
}

/* ---- pulled records ------------------------------------------------------ */

static void get_control(int creator, uint64_t offset, void *out, size_t len)
{
    dsm_status_t st = dsm_tp_get(creator, DSM_TP_SEG_CONTROL, offset, out,
                                 len);
    if (st != DSM_OK)
        dsm_fatal("reading write notices of node %d: %s", creator,
                  dsm_status_string(st));
}

/* Read ring elements [first, first+count) of an array at remote offset. */
static void get_ring(int creator, uint64_t base_offset, size_t elem,
                     uint64_t ring, uint64_t first, uint64_t count, void *out)
{
    uint64_t start = first % ring;
    uint64_t n1 = count < ring - start ? count : ring - start;
    get_control(creator, base_offset + start * elem, out, n1 * elem);
    if (n1 < count)
        get_control(creator, base_offset, (char *)out + n1 * elem,
                    (count - n1) * elem);
}

/* Read interval records (from, to] of creator from its published log and
 * invalidate what they name; every page when the log no longer holds
 * them. */
static void pull_records(int creator, uint32_t from, uint32_t to)
{
    uint64_t nint = to - from;
    if (nint > COH_LOG_INTERVALS) {
        coh_invalidate_all();
        return;
    }
    get_ring(creator, offsetof(coh_log_t, iv), sizeof(coh_log_interval_t),
             COH_LOG_INTERVALS, (uint64_t)from + 1, nint, pull_headers);
    for (uint64_t k = 0; k < nint; k++)
        if (pull_headers[k].seq != from + 1 + k ||
            (k && pull_headers[k].first !=
                      pull_headers[k - 1].first + pull_headers[k - 1].count)) {
            coh_invalidate_all();
            return;
        }
    uint64_t first = pull_headers[0].first;
    uint64_t count = pull_headers[nint - 1].first +
                     pull_headers[nint - 1].count - first;
    if (count > COH_LOG_RANGES) {
        coh_invalidate_all();
        return;
    }
    get_ring(creator, offsetof(coh_log_t, ranges), sizeof(coh_range_t),
             COH_LOG_RANGES, first, count, pull_buffer);
    /* the ranges were not overwritten while we read them? */
    uint64_t total;
    get_control(creator, offsetof(coh_log_t, ranges_total), &total,
                sizeof total);
    if (total - first > COH_LOG_RANGES) {
        coh_invalidate_all();
        return;
    }
    coh_invalidate_ranges(pull_buffer, count);
}

void coh_acquire_upto(const uint32_t *target)
{
    for (int j = 0; j < coh.size; j++)
        if (j != coh.rank && target[j] > coh.vc[j]) {
            pull_records(j, coh.vc[j], target[j]);
            coh.vc[j] = target[j];
        }
}

/* ---- acquire from every node (flush) -------------------------------------
 * A flush has no releaser to take a vector time from: it reads each
 * node's last published interval (its log head), then, for each node with
 * news, the deps vector published with that head (read after the head,
 * and both only grow, so it covers the head's interval).  A dep newer
 * than the head read for its node means that node published more since:
 * read it again.  The target reached is closed under happens-before. */
static uint32_t flush_target[COH_MAX_NODES], flush_head[COH_MAX_NODES];
static uint32_t flush_deps[COH_MAX_NODES];
static unsigned char flush_news[COH_MAX_NODES];

static uint32_t read_head(int j)
{
    uint64_t head;
    get_control(j, offsetof(coh_log_t, last_seq), &head, sizeof head);
    if (head > UINT32_MAX)
        dsm_fatal("node %d published a malformed log head %llu", j,
                  (unsigned long long)head);
    return (uint32_t)head;
}

void coh_acquire_all(void)
{
    const int n = coh.size, me = coh.rank;
    int pending = 0;
    for (int j = 0; j < n; j++) {
        flush_target[j] = coh.vc[j];
        flush_news[j] = 0;
        if (j == me)
            continue;
        flush_head[j] = read_head(j);
        if (flush_head[j] > flush_target[j]) {
            flush_target[j] = flush_head[j];
            flush_news[j] = 1;
            pending = 1;
        }
    }
    while (pending) {
        pending = 0;
        for (int j = 0; j < n; j++) {
            if (!flush_news[j])
                continue;
            flush_news[j] = 0;
            get_control(j, offsetof(coh_log_t, deps), flush_deps,
                        sizeof(uint32_t) * (size_t)n);
            for (int k = 0; k < n; k++) {
                /* deps[j] is node j's own newest interval, written before
                 * the head that announces it: it may be ahead of the head
                 * read for j, and says nothing the head does not */
                if (k == me || k == j || flush_deps[k] <= flush_target[k])
                    continue;
                flush_target[k] = flush_deps[k];
                if (flush_target[k] > flush_head[k]) {
                    flush_head[k] = read_head(k);
                    if (flush_head[k] < flush_target[k])
                        dsm_fatal("node %d's log head %u is behind an "
                                  "interval node %d saw (%u)", k,
                                  flush_head[k], j, flush_target[k]);
                    flush_target[k] = flush_head[k];
                    flush_news[k] = 1;
                    pending = 1;
                }
            }
        }
    }
    coh_acquire_upto(flush_target);
    COH_STAT_ADD(flush_acquires, 1);
}

/* ---- the public flush ------------------------------------------------------ */

static void sync_call(void *arg)
{
    unsigned what = *(const unsigned *)arg;
    coh_protocol_lock();
    if (what & DSM_COH_RELEASE)
        coh_release(0);   /* other threads may be writing */
    if ((what & DSM_COH_ACQUIRE) && coh.size > 1)
        coh_acquire_all();
    coh_protocol_unlock();
}

dsm_status_t dsm_coh_sync(unsigned what)
{
    if (!coh.initialized)
        return DSM_ERR_STATE;
    if (what & ~(unsigned)(DSM_COH_RELEASE | DSM_COH_ACQUIRE))
        return DSM_ERR_INVALID;
    uint64_t t0 = coh_sharing_sync_begin();
    dsm_sys_on_rtstack(sync_call, &what);
    coh_sharing_sync_end(t0);
    return DSM_OK;
}

dsm_status_t dsm_flush(void)
{
    return dsm_coh_sync(DSM_COH_RELEASE | DSM_COH_ACQUIRE);
}
