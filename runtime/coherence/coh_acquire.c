/*
 * coh_acquire.c - the acquire side of lazy release consistency, in one
 * place: learning the write notices of intervals this node has not seen
 * and dropping (or refreshing) the copies they make stale, then advancing
 * the vector time.  Notices reach a node in two ways:
 *   pushed  - a barrier departure or a fork's handoff carries the records
 *             (coh_acquire_records);
 *   pulled  - a lock grant carries the releaser's vector time, a flush
 *             reads every node's published stamps, and the node reads
 *             the records it lacks from their creators' logs with
 *             one-sided gets, every node at once (coh_acquire_upto,
 *             coh_acquire_all).
 * Invariant kept by every path: the vector time is closed under
 * happens-before: holding interval s of node j implies holding every
 * interval j had seen when it published s (the log's stamps), so a pull
 * only needs the stamps of nodes with intervals newer than it holds.
 *
 * Layer: coherence.  Application threads, under the protocol mutex, on a
 * private runtime stack; never from the fault handler or a message
 * handler.
 */
#include <stddef.h>
#include <string.h>

#include "base_log.h"
#include "coh_logread.h"
#include "coh_protocol.h"
#include "coh_sharing.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "coh_wire.h"
#include "coherence.h"
#include "sys_stack.h"
#include "transport.h"

/* ---- pushed records ------------------------------------------------------ */

static coh_range_t *pull_out;           /* also the records' ranges */

/* A refreshing acquire applies the ranges of all its records at once, so
 * that the refresh fetches every page in one round (coh_refresh_ranges). */
void coh_acquire_records(const unsigned char *records, uint32_t nrecords,
                         int refresh)
{
    size_t pos = 0, n = 0;
    for (uint32_t k = 0; k < nrecords; k++) {
        coh_record_hdr_t rec;
        const unsigned char *ranges;
        coh_wire_record_next(records, &pos, &rec, &ranges);
        /* records this node made, or already acted on (a lock, a flush,
         * an earlier barrier); ranges are u32 fields of a buffer the
         * caller keeps 8-byte aligned */
        if ((int)rec.creator == coh.rank || rec.seq <= coh.vc[rec.creator])
            continue;
        const coh_range_t *r = (const coh_range_t *)(const void *)ranges;
        if (!refresh) {
            coh_invalidate_ranges(r, rec.nranges);
            continue;
        }
        if (n + rec.nranges > COH_LOG_RANGES) {
            coh_refresh_ranges(pull_out, n);
            n = 0;
        }
        if (rec.nranges > COH_LOG_RANGES) {
            coh_refresh_ranges(r, rec.nranges);
            continue;
        }
        memcpy(pull_out + n, r, rec.nranges * sizeof *r);
        n += rec.nranges;
    }
    if (n)
        coh_refresh_ranges(pull_out, n);
}

void coh_acquire_vc(const uint32_t *vc)
{
    for (int j = 0; j < coh.size; j++)
        if (vc[j] > coh.vc[j])
            coh.vc[j] = vc[j];
}

/* ---- pulled records ------------------------------------------------------
 * Node j's log (coh_protocol.h) is read with gets that copy its words in
 * any order, so every word used carries the number of its interval and
 * is checked against the number expected; a read that must see what an
 * earlier one promised (the ranges of an interval whose stamp was read)
 * is made by a later round of gets.  A round asks every node at once
 * (dsm_tp_get_many): a pull costs rounds, not rounds per node.
 *   headers  interval from's (where (from, to] begins) up to to's;
 *   ranges   the ring entries between, each stamped with its interval.
 * What was read ahead with a flush's stamps (the next headers, and the
 * ranges after the last interval applied from j) is used when its
 * numbers match; otherwise a round reads it, and a number that does not
 * match then means j's ring has overwritten it since: every page is
 * invalidated, as when the log no longer holds an interval at all. */
#define AHEAD_HEADERS 8
#define AHEAD_RANGES  16
#define HEADER_WORDS  (2 * (COH_LOG_INTERVALS + 1))

enum { PULL_NONE, PULL_HEADERS, PULL_RANGES, PULL_APPLY };

typedef struct pull {
    int state, in_round;
    uint32_t from, to;                  /* apply intervals (from, to] */
    uint32_t start, count;              /* their ranges: ring indexes (low
                                           32 bits) [start, start+count) */
    const uint64_t *hdr;                /* headers of from..to */
    const coh_log_range_t *rng;         /* their ranges */
    /* where the last interval applied from this node ends, end_seq's
     * (zeroed: interval 0 ends at 0, the ring starts zeroed): a flush
     * reads the ranges after it ahead */
    uint32_t end_seq, end;
    int end_unknown;
    /* read ahead with the stamps: headers of ahead_seq.., ranges from
     * ahead_start (none when the counts are 0) */
    uint32_t ahead_seq, nahead_hdr, ahead_start, nahead_rng;
    uint64_t ahead_hdr[COH_NEAR_HEADERS];
    coh_log_range_t ahead_rng[COH_NEAR_RANGES];
} pull_t;

_Static_assert(AHEAD_HEADERS + 1 <= COH_NEAR_HEADERS &&
                   AHEAD_RANGES <= COH_NEAR_RANGES,
               "read-ahead buffers hold a near ring");

/* What a flush reads of each node in one get: the near rings and the
 * stamps, contiguous in the log (coh_protocol.h). */
#define NEAR_OFFSET offsetof(coh_log_t, near_iv)
#define NEAR_BYTES(n)                                                      \
    (offsetof(coh_log_t, stamp) - NEAR_OFFSET + sizeof(uint64_t) * (size_t)(n))
_Static_assert(offsetof(coh_log_t, near_ranges) ==
                       offsetof(coh_log_t, near_iv) +
                           sizeof(uint64_t) * COH_NEAR_HEADERS &&
                   offsetof(coh_log_t, stamp) ==
                       offsetof(coh_log_t, near_ranges) +
                           sizeof(coh_log_range_t) * COH_NEAR_RANGES,
               "the near rings and the stamps are one get");

static pull_t pulls[COH_MAX_NODES];
static uint64_t *pull_headers;          /* HEADER_WORDS */
static coh_log_range_t *pull_ranges;    /* COH_LOG_RANGES */
static coh_range_t *pull_out;           /* COH_LOG_RANGES, as invalidated */
static uint64_t *pull_stamps;           /* COH_MAX_NODES rows of stamps */
static unsigned char *pull_near;        /* COH_MAX_NODES rows of
                                           NEAR_BYTES(COH_MAX_NODES) */
static dsm_tp_get_any_t pull_items[5 * COH_MAX_NODES];

dsm_status_t coh_acquire_setup(void)
{
    pull_headers = coh_table_alloc(sizeof(uint64_t) * HEADER_WORDS);
    pull_ranges = coh_table_alloc(sizeof(coh_log_range_t) * COH_LOG_RANGES);
    pull_out = coh_table_alloc(sizeof(coh_range_t) * COH_LOG_RANGES);
    pull_stamps = coh_table_alloc(sizeof(uint64_t) * COH_MAX_NODES *
                                  COH_MAX_NODES);
    pull_near = coh_table_alloc(NEAR_BYTES(COH_MAX_NODES) * COH_MAX_NODES);
    return pull_headers && pull_ranges && pull_out && pull_stamps && pull_near
               ? DSM_OK
               : DSM_ERR_NOMEM;
}

static void get_many(size_t n)
{
    dsm_status_t st = dsm_tp_get_many(DSM_TP_SEG_CONTROL, pull_items, n);
    COH_STAT_ADD(acquire_gets, n);
    COH_STAT_ADD(acquire_rounds, 1);
    if (st != DSM_OK)
        dsm_fatal("reading write notices of other nodes: %s",
                  dsm_status_string(st));
}

/* Add gets of ring elements [first, first+count) of an array at remote
 * offset base (one or two items: the ring may wrap). */
static void add_ring(size_t *ni, int creator, uint64_t base, size_t elem,
                     uint32_t ring, uint32_t first, uint32_t count, void *out)
{
    uint32_t start = first % ring;
    uint32_t n1 = count < ring - start ? count : ring - start;
    pull_items[(*ni)++] = (dsm_tp_get_any_t){
        creator, base + (uint64_t)start * elem, out, (size_t)n1 * elem};
    if (n1 < count)
        pull_items[(*ni)++] = (dsm_tp_get_any_t){
            creator, base, (char *)out + (size_t)n1 * elem,
            (size_t)(count - n1) * elem};
}

static void add_headers(size_t *ni, int j, uint32_t first, uint32_t count,
                        uint64_t *out)
{
    add_ring(ni, j, offsetof(coh_log_t, iv), sizeof(uint64_t),
             COH_LOG_INTERVALS, first, count, out);
}

static void add_ranges(size_t *ni, int j, uint32_t first, uint32_t count,
                       coh_log_range_t *out)
{
    add_ring(ni, j, offsetof(coh_log_t, ranges), sizeof(coh_log_range_t),
             COH_LOG_RANGES, first, count, out);
}

/* The log no longer holds what this node lacks of it. */
static void lost(pull_t *p)
{
    coh_invalidate_all();
    p->state = PULL_NONE;
    p->end_unknown = 1;
}

/* Headers from..to with the right numbers: where the ranges are. */
static int headers_match(const pull_t *p, const uint64_t *hdr)
{
    return coh_headers_match(hdr, p->from, p->to);
}

static void use_headers(int j, pull_t *p, const uint64_t *hdr)
{
    p->hdr = hdr;
    p->start = COH_LOG_LOW(hdr[0]);
    p->count = COH_LOG_LOW(hdr[p->to - p->from]) - p->start;
    for (uint32_t i = 1; i <= p->to - p->from; i++)
        if (COH_LOG_LOW(hdr[i]) - COH_LOG_LOW(hdr[i - 1]) >
            COH_LOG_RANGES / 4)
            dsm_fatal("node %d published a malformed interval %u", j,
                      p->from + i);
    p->state = p->count ? PULL_RANGES : PULL_APPLY;
    if (p->count > COH_LOG_RANGES)
        lost(p);    /* the ring no longer holds the first of them */
}

/* Ranges of (from, to], each stamped with its interval. */
static int ranges_match(const pull_t *p, const coh_log_range_t *r)
{
    return coh_ranges_match(p->hdr, p->from, p->to, r);
}

/* The ranges read ahead, when they are those of (from, to]. */
static void use_ahead_ranges(pull_t *p)
{
    if (p->state == PULL_RANGES && p->nahead_rng &&
        p->ahead_start == p->start && p->count <= p->nahead_rng &&
        ranges_match(p, p->ahead_rng)) {
        p->rng = p->ahead_rng;
        p->state = PULL_APPLY;
    }
}

/* Read ahead, with the headers, the ranges after the last interval
 * applied from this node, when that is where (from, to] begins. */
static void add_ahead_ranges(size_t *ni, int j, pull_t *p)
{
    p->nahead_rng = 0;
    if (p->end_unknown || p->end_seq != p->ahead_seq)
        return;
    p->ahead_start = p->end;
    p->nahead_rng = AHEAD_RANGES;
    add_ranges(ni, j, p->ahead_start, AHEAD_RANGES, p->ahead_rng);
}

/* The same out of the near rings a flush read with the stamps. */
static void near_ahead_ranges(pull_t *p, const coh_log_range_t *near)
{
    p->nahead_rng = 0;
    if (p->end_unknown || p->end_seq != p->ahead_seq)
        return;
    p->ahead_start = p->end;
    p->nahead_rng = COH_NEAR_RANGES;
    coh_near_ranges(near, COH_NEAR_RANGES, p->ahead_start, COH_NEAR_RANGES,
                    p->ahead_rng);
}

static void apply(pull_t *p)
{
    for (uint32_t k = 0; k < p->count; k++)
        pull_out[k] = (coh_range_t){COH_LOG_LOW(p->rng[k].first),
                                    COH_LOG_LOW(p->rng[k].count)};
    coh_invalidate_ranges(pull_out, p->count);
    p->end_seq = p->to;
    p->end = p->start + p->count;
    p->end_unknown = 0;
    p->state = PULL_NONE;
}

/* Apply every node's intervals (vc[j], target[j]], using what a flush
 * read ahead (ahead: the pulls' ahead fields are from this acquire). */
static void pull_all(const uint32_t *target, int ahead)
{
    const int n = coh.size;
    int left = 0;
    for (int j = 0; j < n; j++) {
        pull_t *p = &pulls[j];
        p->state = PULL_NONE;
        if (j == coh.rank || target[j] <= coh.vc[j])
            continue;
        p->from = coh.vc[j];
        p->to = target[j];
        p->state = PULL_HEADERS;
        left = 1;
        if (p->to - p->from >= COH_LOG_INTERVALS) {
            lost(p);    /* more than the ring of headers holds */
            continue;
        }
        if (!ahead) {
            p->nahead_hdr = p->nahead_rng = 0;
            continue;
        }
        if (p->nahead_hdr && p->ahead_seq == p->from &&
            p->to - p->from < p->nahead_hdr &&
            headers_match(p, p->ahead_hdr))
            use_headers(j, p, p->ahead_hdr);
        use_ahead_ranges(p);
    }
    while (left) {
        /* a round: the headers, or else the ranges, of every node that
         * needs them and fits in the buffers (the others wait a round) */
        size_t ni = 0, hw = 0, rw = 0;
        for (int j = 0; j < n; j++) {
            pull_t *p = &pulls[j];
            p->in_round = 0;
            if (p->state == PULL_HEADERS &&
                hw + (p->to - p->from + 1) <= HEADER_WORDS) {
                p->hdr = pull_headers + hw;
                add_headers(&ni, j, p->from, p->to - p->from + 1,
                            pull_headers + hw);
                hw += p->to - p->from + 1;
                p->ahead_seq = p->from;
                add_ahead_ranges(&ni, j, p);
                p->in_round = 1;
            } else if (p->state == PULL_RANGES &&
                       rw + p->count <= COH_LOG_RANGES) {
                p->rng = pull_ranges + rw;
                add_ranges(&ni, j, p->start, p->count, pull_ranges + rw);
                rw += p->count;
                p->in_round = 1;
            }
        }
        if (ni)
            get_many(ni);
        left = 0;
        for (int j = 0; j < n; j++) {
            pull_t *p = &pulls[j];
            /* read after the stamps that announced them, so written:
             * another number is a later interval in the same slot */
            if (p->in_round && p->state == PULL_HEADERS) {
                if (headers_match(p, p->hdr)) {
                    use_headers(j, p, p->hdr);
                    use_ahead_ranges(p);
                } else {
                    lost(p);
                }
            } else if (p->in_round && p->state == PULL_RANGES) {
                if (ranges_match(p, p->rng))
                    p->state = PULL_APPLY;
                else
                    lost(p);
            }
            if (p->state == PULL_APPLY)
                apply(p);
            left |= p->state != PULL_NONE;
        }
    }
    for (int j = 0; j < n; j++)
        if (j != coh.rank && target[j] > coh.vc[j])
            coh.vc[j] = target[j];
}

void coh_acquire_upto(const uint32_t *target)
{
    pull_all(target, 0);
}

/* ---- acquire from every node (flush) -------------------------------------
 * A flush has no releaser to take a vector time from.  One round reads
 * every other node's stamps, one get per node that also reads its near
 * rings: ahead, the headers and ranges that follow what this node holds
 * of it, when it is less than 16 intervals behind.  Node j's stamps were each written
 * as (s, vc_j[k] at interval s) after interval s was logged, so the
 * smallest s read, h, was published (its header and ranges written), is
 * at least every interval published before the get, and each word read
 * bounds from above what h depends on (vc_j only grows): raising the
 * target to them keeps it closed under happens-before.  A bound above
 * the head read for its node means that node published more since: read
 * its stamps again (a later round). */
static uint32_t flush_target[COH_MAX_NODES], flush_head[COH_MAX_NODES];
static unsigned char flush_news[COH_MAX_NODES], flush_again[COH_MAX_NODES];

/* Node j's head from its stamps row: the smallest number read. */
static uint32_t stamps_head(int j, const uint64_t *row)
{
    if (!coh_stamp_own_ok(row, j))
        dsm_fatal("node %d published a malformed stamp %llx", j,
                  (unsigned long long)row[j]);
    return coh_stamps_head(row, coh.size);
}

void coh_acquire_all(void)
{
    const int n = coh.size, me = coh.rank;
    size_t ni = 0;
    for (int j = 0; j < n; j++) {
        flush_target[j] = coh.vc[j];
        flush_news[j] = flush_again[j] = 0;
        if (j == me)
            continue;
        pull_items[ni++] = (dsm_tp_get_any_t){
            j, NEAR_OFFSET, pull_near + (size_t)j * NEAR_BYTES(COH_MAX_NODES),
            NEAR_BYTES(n)};
    }
    get_many(ni);
    int reread = 0;
    for (int j = 0; j < n; j++) {
        if (j == me)
            continue;
        pull_t *p = &pulls[j];
        const unsigned char *near =
            pull_near + (size_t)j * NEAR_BYTES(COH_MAX_NODES);
        const uint64_t *near_iv = (const uint64_t *)(const void *)near;
        const coh_log_range_t *near_rng =
            (const coh_log_range_t *)(const void *)(near_iv +
                                                     COH_NEAR_HEADERS);
        memcpy(pull_stamps + (size_t)j * COH_MAX_NODES,
               near_rng + COH_NEAR_RANGES, sizeof(uint64_t) * (size_t)n);
        p->ahead_seq = coh.vc[j];
        p->nahead_hdr = COH_NEAR_HEADERS;
        coh_near_headers(near_iv, COH_NEAR_HEADERS, p->ahead_seq,
                         COH_NEAR_HEADERS, p->ahead_hdr);
        near_ahead_ranges(p, near_rng);
        flush_head[j] = stamps_head(j, pull_stamps + (size_t)j * COH_MAX_NODES);
        if (flush_head[j] > flush_target[j]) {
            flush_target[j] = flush_head[j];
            flush_news[j] = 1;
        }
    }
    for (;;) {
        /* the bounds of every node with news; only those: a head this
         * node already holds depends on nothing it lacks */
        for (int j = 0; j < n; j++) {
            if (!flush_news[j])
                continue;
            flush_news[j] = 0;
            const uint64_t *row = pull_stamps + (size_t)j * COH_MAX_NODES;
            for (int k = 0; k < n; k++) {
                uint32_t dep = COH_LOG_LOW(row[k]);
                if (k == me || k == j || dep <= flush_target[k])
                    continue;
                flush_target[k] = dep;
                if (dep > flush_head[k] && !flush_again[k]) {
                    flush_again[k] = 1;
                    reread = 1;
                }
            }
        }
        if (!reread)
            break;
        reread = 0;
        ni = 0;
        for (int k = 0; k < n; k++)
            if (flush_again[k])
                pull_items[ni++] = (dsm_tp_get_any_t){
                    k, offsetof(coh_log_t, stamp),
                    pull_stamps + (size_t)k * COH_MAX_NODES,
                    sizeof(uint64_t) * (size_t)n};
        get_many(ni);
        for (int k = 0; k < n; k++) {
            if (!flush_again[k])
                continue;
            flush_again[k] = 0;
            uint32_t head =
                stamps_head(k, pull_stamps + (size_t)k * COH_MAX_NODES);
            if (head < flush_target[k])
                dsm_fatal("node %d's log head %u is behind an interval "
                          "another node saw (%u)", k, head, flush_target[k]);
            flush_head[k] = flush_target[k] = head;
            flush_news[k] = 1;
        }
    }
    pull_all(flush_target, 1);
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
