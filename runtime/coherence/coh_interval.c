/*
 * coh_interval.c - intervals of lazy release consistency: closing an
 * interval at a release (diffs to homes, re-protection, the published write
 * notice log) and the invalidation an acquire applies to the pages other
 * nodes' notices name (or at barrier departures and fork imports, refresh
 * of the hot ones: coh_refresh.c decides and copies).  Which notices an
 * acquire applies is coh_acquire.c's.
 *
 * Layer: coherence.  Called by application threads with the protocol mutex
 * held (release, invalidation); never from the fault handler.  Pages
 * are handled in chunks of consecutive indices whose page locks are all
 * held, so a faulting thread never sees a state that disagrees with the
 * page's protection.
 */
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "base_time.h"
#include "coh_check.h"
#include "coh_diff.h"
#include "coh_protocol.h"
#include "coh_sharing.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "coh_wire.h"
#include "transport.h"

/* at most this many page locks are held at once (distinct stripes) */
#define CHUNK_PAGES 256u

static coh_log_t *own_log(void) { return coh.control; }

/* Ranges of one refreshing acquire, sorted and merged: every page once,
 * in ascending order, so that the pages held for the refresh are locked
 * in order and never twice (coh_refresh_ranges). */
static coh_range_t *merged;
#define MERGED_MAX COH_LOG_RANGES


static void lock_chunk(size_t first, size_t n)
{
    for (size_t i = 0; i < n; i++)
        coh_page_lock(first + i);
}

static void unlock_chunk(size_t first, size_t n, const char *where)
{
    for (size_t i = 0; i < n; i++) {
        coh_check_page(first + i, where);
        coh_page_unlock(first + i);
    }
}

/* ---- diffs to homes ----------------------------------------------------
 * A release encodes the diffs of its non-home pages into one message per
 * home (several when large); the home applies them in its message handler
 * with byte masks (one-sided puts cannot write only some bytes of a word)
 * and acknowledges; the release completes when every message is
 * acknowledged, before its write notice is published.  Diffs to node 0
 * that a barrier or join arrival follows are not acknowledged: node 0
 * applies them before it takes the arrival, which publishes the notices,
 * and nothing on this node waits for them (coh_release_before_arrival).
 * The last message of them is kept back and carries the arrival
 * (coh_send_arrival): one message instead of two. */
#define DIFF_MSG_BYTES ((size_t)256 << 10)

static char *diff_msg;                 /* the message being filled */
static size_t diff_msg_len;
static uint32_t diff_msg_pages;
static int diff_msg_home = -1;
/* Messages sent that homes acknowledge, and acknowledgements (cumulative) */
static uint64_t diffs_outstanding;
static _Atomic uint64_t diffs_acked;
static volatile int diffs_done;
static int diffs_lazy_to_node0;        /* during such a release */
static int diff_held;                  /* diff_msg waits for the arrival */

/* Send the message being filled with its COH_DIFF_* flags, and tail
 * after the diffs (an arrival), and start a new one.  Node 0 takes diffs
 * an arrival follows at its barrier: no need to wake it for them (lazy). */
static dsm_status_t diff_msg_send(uint32_t flags, const void *tail,
                                  size_t tail_len)
{
    coh_msg_diff_t hdr = {diff_msg_pages, flags};
    memcpy(diff_msg, &hdr, sizeof hdr);
    dsm_status_t st =
        flags ? dsm_tp_am_sendv_lazy(0, COH_AM_DIFF, diff_msg, diff_msg_len,
                                     tail, tail_len)
              : dsm_tp_am_send(diff_msg_home, COH_AM_DIFF, diff_msg,
                               diff_msg_len);
    diff_msg_len = sizeof hdr;
    diff_msg_pages = 0;
    return st;
}

/* Send the message being filled; at the end of a release before an
 * arrival (last), keep one for node 0 back for the arrival. */
static void diff_send_or_hold(int last)
{
    if (!diff_msg_pages)
        return;
    int followed = diff_msg_home == 0 && diffs_lazy_to_node0;
    if (last && followed) {
        diff_held = 1;
        return;
    }
    dsm_status_t st = diff_msg_send(followed ? COH_DIFF_ARRIVAL_FOLLOWS : 0,
                                    NULL, 0);
    if (st != DSM_OK)
        dsm_fatal("sending diffs to node %d: %s", diff_msg_home,
                  dsm_status_string(st));
    if (!followed)
        diffs_outstanding++;
}

static void diff_send(void) { diff_send_or_hold(0); }

/* Wait until every home has applied what was sent (diffs an arrival
 * follows excepted). */
static void diff_complete(void)
{
    diff_send_or_hold(1);
    for (;;) {
        /* reset, then check, with a full fence between: a plain store may
         * leave the store buffer after the loads below (x86 lets a later
         * load pass an earlier store), and so overwrite the flag an
         * acknowledgement set meanwhile, which then waits for ever */
        __atomic_store_n(&diffs_done, 0, __ATOMIC_SEQ_CST);
        if (atomic_load(&diffs_acked) >= diffs_outstanding)
            break;
        dsm_tp_wait_flag(&diffs_done, "a home's acknowledgement of diffs");
    }
}

static void on_diff_ack(int src, const void *payload, size_t len, void *arg)
{
    if (len != 0)
        dsm_fatal("malformed diff acknowledgement from node %d", src);
    atomic_fetch_add(&diffs_acked, 1);
    __atomic_store_n(&diffs_done, 1, __ATOMIC_RELEASE);
}

/* Home side: check the whole message (coh_wire_diff_message), so a
 * malformed one changes nothing, then apply every page's diff and
 * acknowledge (unless an arrival follows). */
static void on_diff(int src, const void *payload, size_t len, void *arg)
{
    const coh_wire_limits_t lim = {(uint32_t)coh.size, coh.npages,
                                   COH_MAX_SLOTS};
    uint32_t npages, flags;
    size_t diffs_len;
    if (coh_wire_diff_message(payload, len, &lim, DSM_PAGE_SIZE, &npages,
                              &flags, &diffs_len) != DSM_OK)
        dsm_fatal("malformed diff message from node %d (%zu bytes)", src, len);
    int followed = (flags & (COH_DIFF_ARRIVAL_FOLLOWS |
                             COH_DIFF_ARRIVAL_INSIDE)) != 0;
    if (followed && coh.rank != 0)
        dsm_fatal("malformed diff message from node %d: an arrival follows "
                  "it, but node %d takes no arrivals", src, coh.rank);
    size_t pos = sizeof(coh_msg_diff_t), applied = 0;
    for (uint32_t k = 0; k < npages; k++) {
        uint32_t index;
        const unsigned char *diff;
        size_t diff_len;
        coh_wire_diff_next(payload, &pos, &index, &diff, &diff_len);
        if (!(atomic_load(&coh.pages[index].flags) & PF_HOME))
            dsm_fatal("diff from node %d for page %u, which node %d does "
                      "not home", src, index, coh.rank);
    }
    pos = sizeof(coh_msg_diff_t);
    for (uint32_t k = 0; k < npages; k++) {
        uint32_t index;
        const unsigned char *diff;
        size_t diff_len, bytes;
        coh_wire_diff_next(payload, &pos, &index, &diff, &diff_len);
        if (dsm_diff_apply(coh_page_rt(index), DSM_PAGE_SIZE, diff, diff_len,
                           &bytes) != DSM_OK)
            dsm_fatal("malformed diff from node %d for page %u", src, index);
        applied += bytes;
    }
    COH_STAT_ADD(diff_bytes_applied, applied);
    if (flags & COH_DIFF_ARRIVAL_INSIDE)
        coh_barrier_arrival(src, (const char *)payload + diffs_len,
                            len - diffs_len);
    if (followed)
        return;
    dsm_status_t st = dsm_tp_am_send(src, COH_AM_DIFF_ACK, NULL, 0);
    if (st != DSM_OK)
        dsm_fatal("acknowledging diffs to node %d: %s", src,
                  dsm_status_string(st));
}

void coh_send_arrival(const void *arrival, size_t len)
{
    dsm_status_t st;
    if (diff_held) {
        st = diff_msg_send(COH_DIFF_ARRIVAL_INSIDE, arrival, len);
        diff_held = 0;
    } else {
        st = dsm_tp_am_send_lazy(0, COH_AM_BARRIER_ARRIVE, arrival, len);
    }
    if (st != DSM_OK)
        dsm_fatal("barrier arrival to node 0: %s", dsm_status_string(st));
}

dsm_status_t coh_interval_register_handlers(void)
{
    dsm_status_t st;
    if ((st = coh_am_register(COH_AM_DIFF, on_diff)) != DSM_OK ||
        (st = coh_am_register(COH_AM_DIFF_ACK, on_diff_ack)) != DSM_OK)
        return st;
    return DSM_OK;
}

/* Encode a written non-home page's diff into the message for its home;
 * returns its length (0: unchanged).  Page lock held, page already
 * write-protected, or nobody writes it (an eager page at a quiescent
 * release). */
static size_t send_diff(size_t index, coh_page_t *pg)
{
    size_t need = sizeof(coh_diff_page_t) + DSM_DIFF_MAX_ENCODED(DSM_PAGE_SIZE);
    if (diff_msg_home != pg->home || DIFF_MSG_BYTES - diff_msg_len < need) {
        diff_send();
        diff_msg_home = pg->home;
    }
    char *rec = diff_msg + diff_msg_len;
    size_t n = dsm_diff_encode(coh_page_rt(index), coh_page_twin(index),
                               DSM_PAGE_SIZE, rec + sizeof(coh_diff_page_t));
    atomic_fetch_and_explicit(&pg->flags, (uint8_t)~PF_TWIN,
                              memory_order_relaxed);
    if (!n)
        return 0;
    coh_diff_page_t hdr = {(uint32_t)index, (uint32_t)n};
    memcpy(rec, &hdr, sizeof hdr);
    diff_msg_len += sizeof hdr + n;
    diff_msg_pages++;
    COH_STAT_ADD(diffs_sent, 1);
    COH_STAT_ADD(diff_bytes_sent, n);
    coh_sharing_diff(index, rec + sizeof(coh_diff_page_t), n);
    return n;
}

dsm_status_t coh_interval_setup(void)
{
    diff_msg = coh_table_alloc(DIFF_MSG_BYTES);
    diff_msg_len = sizeof(coh_msg_diff_t);
    merged = coh_table_alloc(sizeof(coh_range_t) * MERGED_MAX);
    return diff_msg && merged ? DSM_OK : DSM_ERR_NOMEM;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- eager pages --------------------------------------------------------
 * A shared home page is write-protected at every release so that the
 * home's next write faults and is noticed: a signal and an mprotect, 7 to
 * 17 us here (more with a TLB shootdown per thread), for pages a program
 * writes in every interval or every few (its own block's edge that a
 * neighbour reads, in every other interval when two grids alternate, as
 * in Jacobi; a thread's partial sums; node 0's stack under the fork).  A
 * home page written in EAGER_AFTER intervals at most EAGER_GAP apart is
 * instead left writable and listed as written in every interval from
 * then on (PF_EAGER): no fault, only a notice.  Listing it without knowing
 * is conservative, never wrong.  To find pages that went quiet, the
 * release compares an eager page with a snapshot of it taken at the
 * previous release (the twin slot, unused by home pages): after
 * EAGER_IDLE releases in a row without a change (more than a gap) the
 * page is write-protected again.  A page written in bursts once per
 * time step of a program (each array in some of the step's regions) is
 * idle for longer than that and came back at every step: three faults
 * a page and step.  So a page demoted and written again within twice its
 * patience was demoted too early, and its next eagerness waits twice as
 * long (EAGER_IDLE << eager_level, at most EAGER_LEVEL_MAX doublings); a
 * page that comes back later starts from EAGER_IDLE again.  The
 * comparison only ends eagerness,
 * never skips a notice: a word written and then restored would compare
 * equal while a reader may hold the value in between.
 *
 * A non-home page written as often (the other side of that edge, when the
 * edge falls inside a page both nodes write) pays the same fault, a twin
 * and a second mprotect at the release.  Where the node promised that
 * nobody writes during its barriers (dsm_barrier_quiescent), a quiescent
 * release (barrier, join, fork hand-off) leaves it writable too: its diff
 * goes to the home as usual, and its twin is brought up to date (copied
 * again when the diff was not empty) instead of the page being protected.
 * Nobody writes between the diff and the copy, so no write is lost.  At
 * the departure a notice for it refreshes page and twin from the home
 * (coh_refresh.c), still writable; any other acquire, and any other
 * release (a lock's, with threads running), treats it as an ordinary
 * written page and ends its eagerness.  Here the diff itself tells
 * whether the page changed: EAGER_IDLE empty diffs in a row end it. */
#define EAGER_AFTER 3
#define EAGER_GAP 4
#define EAGER_IDLE 5
#define EAGER_LEVEL_MAX 3
#define WRITTEN_RUN_MAX 15

/* Compare the page with its snapshot and bring the snapshot up to date;
 * returns whether it changed.  (A write racing with the copy only makes
 * the next comparison find no change: eagerness may end a release late
 * or early, a notice is never skipped.)  memcmp and memcpy, not a loop
 * over words that does both: this runs for every eager page at every
 * release. */
static int snapshot_changed(size_t index)
{
    const void *now = coh_page_rt(index);
    void *snap = coh_page_twin(index);
    if (!memcmp(now, snap, DSM_PAGE_SIZE))
        return 0;
    memcpy(snap, now, DSM_PAGE_SIZE);
    return 1;
}

/* Unchanged releases an eager page is kept writable for. */
static unsigned patience(const coh_page_t *pg)
{
    return (unsigned)EAGER_IDLE << pg->eager_level;
}

/* A written page released at interval seq: was it written in EAGER_AFTER
 * intervals in a row, at most max_gap apart?  A page not eager notes the
 * idle stretch a new run of writes ends. */
static int written_often(coh_page_t *pg, uint8_t flags, uint32_t seq,
                         unsigned max_gap)
{
    uint16_t low = (uint16_t)seq;
    uint16_t gap = (uint16_t)(low - pg->written_seq);
    if (gap >= 1 && gap <= max_gap) {
        if (pg->written_run < WRITTEN_RUN_MAX)
            pg->written_run++;
    } else {
        pg->written_run = 1;
        if (!(flags & PF_EAGER))
            pg->eager_idle = gap > UINT8_MAX ? UINT8_MAX : (uint8_t)gap;
    }
    pg->written_seq = low;
    return pg->written_run >= EAGER_AFTER;
}

/* Eager again soon after a demotion: patience doubles; later: reset. */
static void become_eager(coh_page_t *pg)
{
    pg->eager_unfit = 0;
    if (pg->eager_before) {
        if (pg->eager_idle <= 2 * patience(pg)) {
            if (pg->eager_level < EAGER_LEVEL_MAX)
                pg->eager_level++;
        } else {
            pg->eager_level = 0;
        }
        pg->eager_before = 0;
    }
    pg->eager_idle = 0;
    atomic_fetch_or(&pg->flags, PF_EAGER);
    COH_STAT_ADD(eager_pages, 1);
}

static void end_eagerness(coh_page_t *pg)
{
    atomic_fetch_and(&pg->flags, (uint8_t)~PF_EAGER);
    pg->written_run = 0;
    pg->eager_before = 1;
}

/* A home page released at interval seq: does it stay writable (eager)? */
static int stays_eager(size_t index, coh_page_t *pg, uint8_t flags,
                       uint32_t seq)
{
    if (!(flags & PF_HOME) || !(flags & PF_SHARED))
        return 0;
    if (flags & PF_EAGER) {
        pg->eager_idle = snapshot_changed(index) ? 0 : pg->eager_idle + 1;
        if (pg->eager_idle < patience(pg))
            return 1;
        end_eagerness(pg);
        return 0;
    }
    if (!written_often(pg, flags, seq, EAGER_GAP))
        return 0;
    memcpy(coh_page_twin(index), coh_page_rt(index), DSM_PAGE_SIZE);
    become_eager(pg);
    return 1;
}

/* A written non-home page released at interval seq: it becomes or stays
 * eager only at a quiescent release (whether it goes on being written is
 * told by its diff, keep_eager_remote); any other release ends that.  A
 * page whose eagerness cost refreshes it did not need (coh_refresh.c,
 * eager_unfit) becomes eager again only if written in consecutive
 * intervals. */
static void eager_remote_decide(coh_page_t *pg, uint8_t flags, uint32_t seq,
                                int quiescent)
{
    int often = written_often(pg, flags, seq,
                              pg->eager_unfit ? 1u : EAGER_GAP);
    if (!quiescent) {
        if (flags & PF_EAGER)
            atomic_fetch_and(&pg->flags, (uint8_t)~PF_EAGER);
    } else if (!(flags & PF_EAGER) && often) {
        become_eager(pg);
    }
}

/* An eager non-home page at a quiescent release: its diff to the home,
 * then its twin equals the page again; after its patience of unchanged
 * releases it is protected like any released page.  Returns whether the
 * page changed: an unchanged one needs no notice, because no other node
 * can have seen a value this node wrote and restored (they reach other
 * nodes only through diffs).  Page lock held. */
static int keep_eager_remote(size_t index, coh_page_t *pg)
{
    int changed = send_diff(index, pg) != 0;
    if (changed) {
        memcpy(coh_page_twin(index), coh_page_rt(index), DSM_PAGE_SIZE);
        coh_push_installed(index, 1);   /* this node changed it */
        pg->eager_idle = 0;
    } else if (++pg->eager_idle >= patience(pg)) {
        end_eagerness(pg);
        coh_protect(index, 1, DSM_PROT_READ);
        coh_push_installed(index, 1);
        atomic_store_explicit(&pg->state, PS_READONLY, memory_order_release);
        return 0;
    }
    atomic_fetch_or(&pg->flags, PF_TWIN);
    coh_dirty_add(index);
    return changed;
}

static int is_writable_lazy(const coh_page_t *pg)
{
    return atomic_load(&pg->state) == PS_WRITABLE &&
           !(atomic_load(&pg->flags) & PF_EAGER);
}

#define NOT_WRITTEN UINT32_MAX

/* Write-protect and publish one chunk of consecutive written pages of
 * interval seq (listed: their entries in the interval's page list); eager
 * pages stay writable and go on the next interval's dirty list at once.
 * An eager non-home page found unchanged gets NOT_WRITTEN in listed. */
static void release_chunk(size_t first, size_t n, uint32_t seq,
                          int quiescent, uint32_t *listed)
{
    lock_chunk(first, n);
    for (size_t i = 0; i < n; i++) {
        coh_page_t *pg = &coh.pages[first + i];
        uint8_t flags = atomic_fetch_and(&pg->flags, (uint8_t)~PF_DIRTY);
        if (atomic_load(&pg->state) != PS_WRITABLE)
            continue;
        if (flags & PF_HOME) {
            if (stays_eager(first + i, pg, flags, seq))
                coh_dirty_add(first + i);
        } else {
            eager_remote_decide(pg, flags, seq, quiescent);
        }
    }
    coh_protect_where(first, n, is_writable_lazy, DSM_PROT_READ);
    for (size_t i = 0; i < n; i++) {
        coh_page_t *pg = &coh.pages[first + i];
        uint8_t flags = atomic_load(&pg->flags);
        if (atomic_load(&pg->state) != PS_WRITABLE)
            continue;   /* published early by an invalidation */
        if (flags & PF_EAGER) {
            if (!(flags & PF_HOME) && !keep_eager_remote(first + i, pg))
                listed[i] = NOT_WRITTEN;
            continue;
        }
        if (flags & PF_TWIN)
            send_diff(first + i, pg);
        if (!(flags & PF_HOME))
            coh_push_installed(first + i, 1);   /* this node changed it */
        atomic_store_explicit(&pg->state, PS_READONLY, memory_order_release);
    }
    unlock_chunk(first, n, "a release");
}

/* Append the ranges of a sorted page list to the published log as interval
 * seq.  Consecutive pages become one range.  Order (readers use gets that
 * copy words in any order: coh_acquire.c): the ranges, then the header,
 * then the stamps, each stamped with seq, the near rings beside the big
 * ones; a reader trusts a header or range only with the number it
 * expects, read in the get of the stamps or after one. */
static void put_range(coh_log_t *log, uint64_t index, uint32_t seq,
                      uint32_t first, uint32_t count)
{
    coh_log_range_t *r = &log->ranges[index % COH_LOG_RANGES];
    coh_log_range_t *near = &log->near_ranges[index % COH_NEAR_RANGES];
    __atomic_store_n(&r->first, COH_LOG_WORD(seq, first), __ATOMIC_RELAXED);
    __atomic_store_n(&r->count, COH_LOG_WORD(seq, count), __ATOMIC_RELAXED);
    __atomic_store_n(&near->first, COH_LOG_WORD(seq, first),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&near->count, COH_LOG_WORD(seq, count),
                     __ATOMIC_RELAXED);
}

static void log_interval(uint32_t seq, const uint32_t *pages, size_t n)
{
    coh_log_t *log = own_log();
    uint64_t first = atomic_load_explicit(&log->ranges_total,
                                          memory_order_relaxed);
    uint64_t count = 0, nranges = 1;
    for (size_t i = 1; i < n; i++)
        nranges += pages[i] != pages[i - 1] + 1;
    if (nranges > COH_LOG_RANGES / 4) {
        /* too scattered to log exactly: one covering range is a correct
         * over-approximation (only costs extra invalidations) */
        put_range(log, first, seq, pages[0], pages[n - 1] - pages[0] + 1);
        count = 1;
        n = 0;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && pages[j] == pages[j - 1] + 1)
            j++;
        put_range(log, first + count, seq, pages[i], (uint32_t)(j - i));
        count++;
        i = j;
    }
    atomic_store_explicit(&log->iv[seq % COH_LOG_INTERVALS],
                          COH_LOG_WORD(seq, first + count),
                          memory_order_release);
    atomic_store_explicit(&log->near_iv[seq % COH_NEAR_HEADERS],
                          COH_LOG_WORD(seq, first + count),
                          memory_order_release);
    atomic_store_explicit(&log->ranges_total, first + count,
                          memory_order_release);
    /* what the interval may depend on, after the header and ranges (a
     * flush that reads a stamp s then reads interval s's header) */
    for (int j = 0; j < coh.size; j++)
        atomic_store_explicit(&log->stamp[j],
                              COH_LOG_WORD(seq, j == coh.rank ? seq
                                                              : coh.vc[j]),
                              memory_order_release);
    coh_check_log(seq);
}

int coh_log_ranges(uint32_t seq, uint64_t *first, size_t *n)
{
    coh_log_t *log = own_log();
    uint64_t hdr = atomic_load(&log->iv[seq % COH_LOG_INTERVALS]);
    uint64_t prev = atomic_load(&log->iv[(seq - 1) % COH_LOG_INTERVALS]);
    uint64_t total = atomic_load(&log->ranges_total);
    /* seq - 1's header gives where seq's ranges begin (0 for seq 1:
     * the ring starts zeroed) */
    if (COH_LOG_SEQ(hdr) != seq || COH_LOG_SEQ(prev) != seq - 1)
        return 0;
    uint32_t count = COH_LOG_LOW(hdr) - COH_LOG_LOW(prev);
    /* the ranges end at total's low bits or before: back to 64 bits */
    uint64_t end = total - (uint32_t)((uint32_t)total - COH_LOG_LOW(hdr));
    if (total - (end - count) > COH_LOG_RANGES)
        return 0;
    *first = end - count;
    *n = count;
    return 1;
}

coh_range_t coh_log_range(uint64_t index)
{
    const coh_log_range_t *r = &own_log()->ranges[index % COH_LOG_RANGES];
    coh_range_t out = {COH_LOG_LOW(r->first), COH_LOG_LOW(r->count)};
    return out;
}

size_t coh_own_records(void *out, size_t cap, uint32_t *nrecords,
                       int *overflow)
{
    unsigned char *o = out;
    size_t len = 0;
    uint32_t count = 0;
    *overflow = 0;
    for (uint32_t seq = coh.vc_at_barrier[coh.rank] + 1;
         seq <= coh.vc[coh.rank]; seq++) {
        size_t n = 0;
        uint64_t first = 0;
        int kept = coh_log_ranges(seq, &first, &n);
        coh_record_hdr_t rec = {(uint32_t)coh.rank, seq, (uint32_t)n, 0};
        size_t need = sizeof rec + n * sizeof(coh_range_t);
        if (!kept || need > cap - len) {
            *overflow = 1;
            *nrecords = 0;
            return 0;
        }
        memcpy(o + len, &rec, sizeof rec);
        for (size_t k = 0; k < n; k++) {
            coh_range_t r = coh_log_range(first + k);
            memcpy(o + len + sizeof rec + k * sizeof r, &r, sizeof r);
        }
        len += need;
        count++;
    }
    *nrecords = count;
    return len;
}

static uint32_t release(int node0_follows, int quiescent);

uint32_t coh_release(int quiescent) { return release(0, quiescent); }

uint32_t coh_release_before_arrival(int quiescent)
{
    return release(coh.rank != 0, quiescent);
}

static uint32_t release(int node0_follows, int quiescent)
{
    coh_check_dirty("a release");
    if (diff_held)
        dsm_fatal("a release while diffs wait for an arrival");
    dsm_mutex_lock(&coh.dirty_lock);
    uint32_t *pages = coh.dirty;
    size_t n = coh.ndirty;
    coh.dirty = coh.dirty_spare;
    coh.ndirty = 0;
    coh.dirty_spare = pages;
    dsm_mutex_unlock(&coh.dirty_lock);
    if (n == 0)
        return 0;   /* before the clock: a fork or join that wrote nothing
                       pays no clock read (25 ns on this machine) */

    uint64_t t0 = dsm_now_ns();
    uint32_t seq = coh.vc[coh.rank] + 1;
    qsort(pages, n, sizeof *pages, cmp_u32);
    diffs_lazy_to_node0 = node0_follows;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && pages[j] == pages[j - 1] + 1 && j - i < CHUNK_PAGES)
            j++;
        release_chunk(pages[i], j - i, seq, quiescent, pages + i);
        i = j;
    }
    diff_complete();
    diffs_lazy_to_node0 = 0;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (pages[i] != NOT_WRITTEN)
            pages[kept++] = pages[i];
    n = kept;
    if (n == 0) {   /* only eager pages, none changed: no interval */
        COH_STAT_ADD(protocol_ns, dsm_now_ns() - t0);
        return 0;
    }
    log_interval(seq, pages, n);
    COH_STAT_ADD(write_notices_sent, n);
    coh.vc[coh.rank] = seq;
    COH_STAT_ADD(protocol_ns, dsm_now_ns() - t0);
    return seq;
}

/* Not a direct page either: its view is the home's memory, which already
 * holds what the notice announces (coh_fault.c, "direct reads").  A
 * prefetched copy (PS_FETCHED) is dropped too. */
static int needs_invalidation(const coh_page_t *pg)
{
    return !(atomic_load(&pg->flags) & (PF_HOME | PF_REFRESH | PF_DIRECT)) &&
           atomic_load(&pg->state) != PS_INVALID &&
           !coh_push_kept((size_t)(pg - coh.pages));
}

/* Of those, the ones whose view is not PROT_NONE already. */
static int needs_protection_drop(const coh_page_t *pg)
{
    return needs_invalidation(pg) && atomic_load(&pg->state) != PS_FETCHED;
}

/* Invalidate one chunk of consecutive pages, protections changed in runs;
 * pages written by this node in its open interval are diffed to their
 * homes first (after the protection change, so no write slips past).
 * With refresh, the hot clean pages of mapped homes and the eager written
 * ones are marked to be refreshed instead (coh_refresh.c) and keep their
 * protection; they stay locked until coh_refresh_finish copies them. */
static size_t invalidate_chunk(size_t first, size_t n, int refresh)
{
    size_t dropped = 0, early = 0;
    if (refresh && coh_refresh_must_finish(first, n))
        coh_refresh_finish();
    lock_chunk(first, n);
    size_t kept = refresh ? coh_refresh_select(first, n) : 0;
    coh_protect_where(first, n, needs_protection_drop, DSM_PROT_NONE);
    for (size_t i = 0; i < n; i++) {
        coh_page_t *pg = &coh.pages[first + i];
        if (!needs_invalidation(pg)) {
            /* a copy dropped earlier is out of date again: a want names
             * the program point of the last change before the read */
            if (atomic_load(&pg->state) == PS_INVALID &&
                !(atomic_load(&pg->flags) & PF_HOME))
                coh_want_dropped(first + i);
            continue;
        }
        if (atomic_load(&pg->state) == PS_WRITABLE &&
            (atomic_load(&pg->flags) & PF_TWIN)) {
            send_diff(first + i, pg);
            early++;
        }
        atomic_fetch_and(&pg->flags, (uint8_t)~PF_EAGER);
        atomic_store_explicit(&pg->state, PS_INVALID, memory_order_release);
        coh_refresh_dropped(first + i);
        dropped++;
    }
    if (early)   /* the next fetch of these pages must find our writes */
        diff_complete();
    if (kept)
        coh_refresh_hold(first, n);
    for (size_t i = first; i < first + n; i++)
        if (!kept || !(atomic_load(&coh.pages[i].flags) & PF_REFRESH)) {
            coh_check_page(i, "an acquire");
            coh_page_unlock(i);
        }
    return dropped;
}

static void invalidate_ranges(const coh_range_t *ranges, size_t n,
                              int refresh)
{
    size_t dropped = 0, noticed = 0;
    for (size_t r = 0; r < n; r++) {
        size_t first = ranges[r].first, count = ranges[r].count;
        if (first >= coh.npages || count > coh.npages - first)
            dsm_fatal("write notice for pages [%zu, +%zu) outside the "
                      "sharable space", first, count);
        noticed += count;
        for (size_t done = 0; done < count;) {
            size_t c = count - done < CHUNK_PAGES ? count - done : CHUNK_PAGES;
            dropped += invalidate_chunk(first + done, c, refresh);
            done += c;
        }
    }
    if (refresh)
        coh_refresh_finish();
    COH_STAT_ADD(write_notices_received, noticed);
    COH_STAT_ADD(invalidations, dropped);
}

void coh_invalidate_ranges(const coh_range_t *ranges, size_t n)
{
    invalidate_ranges(ranges, n, 0);
}

static int cmp_range(const void *a, const void *b)
{
    uint32_t x = ((const coh_range_t *)a)->first,
             y = ((const coh_range_t *)b)->first;
    return x < y ? -1 : x > y;
}


void coh_refresh_ranges(const coh_range_t *ranges, size_t n)
{
    if (n > MERGED_MAX) {   /* never in practice: correct, only slower */
        coh_invalidate_ranges(ranges, n);
        return;
    }
    memcpy(merged, ranges, n * sizeof *ranges);
    qsort(merged, n, sizeof *merged, cmp_range);
    size_t m = 0, noticed = 0;
    for (size_t r = 0; r < n; r++) {
        uint64_t first = merged[r].first, end = first + merged[r].count;
        noticed += merged[r].count;
        if (merged[r].count == 0)
            continue;
        if (m && first <= (uint64_t)merged[m - 1].first + merged[m - 1].count) {
            uint64_t last_end = (uint64_t)merged[m - 1].first +
                                merged[m - 1].count;
            if (end > last_end)
                merged[m - 1].count = (uint32_t)(end - merged[m - 1].first);
            continue;
        }
        merged[m++] = merged[r];
    }
    invalidate_ranges(merged, m, 1);
    /* count the notices as they came (a page named twice, twice) */
    size_t once = 0;
    for (size_t r = 0; r < m; r++)
        once += merged[r].count;
    COH_STAT_ADD(write_notices_received, noticed - once);
}

void coh_invalidate_all(void)
{
    coh_range_t all = {0, (uint32_t)coh.npages};
    dsm_log(DSM_LOG_INFO, "write notices were lost (log overflow): "
            "invalidating every cached page");
    coh_invalidate_ranges(&all, 1);
}
