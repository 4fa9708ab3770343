/*
 * coh_push.c - pushed updates: a barrier departure, and a fork's hand-off,
 * carries the small changes of node 0's home pages, and a node whose copy
 * of such a page is what node 0 last pushed (or fetched and unchanged
 * since) applies them instead of dropping the copy, so its next read needs
 * no fault and no fetch.  See doc/design.md, "Pushed updates".
 *
 * Node 0 (gather, or a fork's export): for each page of the records that
 * it homes and shares, it keeps a snapshot of the page as it was at the
 * last push event that named it (a shadow of the space, node 0 only).
 * The message carries diff(page now, snapshot) when small
 * (PUSH_PAGE_BYTES, at most PUSH_BYTES in all), and the snapshot becomes
 * the page.  Nobody writes at that moment: at a gather every node has
 * arrived, and every diff and atomic of the epoch reached node 0 before
 * the arrival of its sender; at a fork only node 0's forking thread runs
 * and the other nodes wait for the FORK.
 *
 * Push events: every departure and every fork, in one order on every node
 * (each node receives every departure and every FORK, proxies included; a
 * fork's import applies the held departure first).  Every other node
 * counts them (events) and keeps a stamp per page: 2 * events when the
 * copy was installed by a get or written here, 2 * K + 1 when the push of
 * event K was applied.  At event K a copy whose stamp is below 2 * K was
 * installed before event K - 1 and neither fetched again nor written
 * since; since every change of the page after the copy was taken is
 * named by a record of some event (a departure names the epoch's writes,
 * a fork node 0's serial writes since the join) and a named page is
 * dropped unless pushed, it equals node 0's snapshot, so the diff makes it
 * node 0's page of event K.  (An atomic writes its value into the
 * caller's copy: that stamps it too.)  A whole page, sent at a page's
 * second naming and every PUSH_FULL_EVERY pushes, at the first barrier
 * or join that names a page after a fork that named it without a diff,
 * and at a join whenever another node wrote the page in the region's
 * last epoch, may replace any clean copy.  Eager non-home copies (writable, twin equal to the page
 * since their release) take pushes too, page and twin: a page several
 * nodes write, node 0 among them, moves home to node 0 (coh_migrate.c)
 * and the departure's whole page replaces the other writers' refresh
 * gets.  The invariants build
 * carries hashes of node 0's page and of the snapshot with each entry and
 * checks the copy before and after (rule U1).
 *
 * Wanted pages (coh_want.c) go whole, from any home: node 0 with its
 * departure or fork, another home with its arrival, at the program points
 * where a reader reads them, once per change (unsent: a change made
 * elsewhere waits for the next build at such a point).
 *
 * Why at a fork: node 0's serial code writes the page that holds the
 * region's arguments (the master's stack) before every region, and the
 * hand-off's notices dropped every reader's copy, so each reader fetched
 * it again at the region's start, a round trip on every region's
 * critical path (tiny; performance.md, "Critical path: one reduction, one
 * tiny region").  A fork that names a page without pushing it (a large
 * change, the first snapshot, no room) leaves the readers to fetch it
 * during the region, after the fork, and such a copy cannot take the
 * next departure's diff; the first barrier of the region then sends the
 * whole page.  Not at the join: the next fork pushes or drops the page
 * anyway.
 *
 * Layer: coherence.  coh_push_installed: the fault handler and the
 * protocol's gets (plain stores under the pages' locks).  Everything
 * else: the thread doing the barrier's global part or the fork's hand-off,
 * protocol mutex held.
 */
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "coh_check.h"
#include "coh_diff.h"
#include "coh_protocol.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "coh_wire.h"
#include "sys_dump.h"

#define PUSH_PAGE_BYTES 512u          /* an encoded diff this small goes */
#define PUSH_BYTES ((size_t)16 << 10) /* per departure, diffs and headers */
#define PUSH_SKIP 16u                 /* namings a large change skips */
/* every so many pushes, the page; odd: a page named at every barrier
 * whose reader drops and fetches it in alternate epochs (a fetch during
 * an epoch cannot take that epoch's diff) holds a valid copy at every
 * other push, and an even period would always hit the same phase */
#define PUSH_FULL_EVERY 31u
#define FULL_BYTES (4u + DSM_PAGE_SIZE)
/* more room per push event, for wanted pages sent whole (coh_want.c) */
#define PUSH_WANTED_BYTES ((size_t)64 << 10)
#define WANTED_MAX (PUSH_WANTED_BYTES / DSM_PAGE_SIZE)

static uint32_t *stamp;                /* every node but 0 */
static uint32_t events;                /* push events applied (departures
                                          and forks) */
static _Atomic uint32_t clock2;        /* 2 * events, the one being
                                          applied included */
static uint32_t kept_mark;             /* 2K + 1 during event K, or 0 */

/* every node: the pushes it builds (node 0's departures and forks,
 * the others' arrivals) */
static uint32_t *snap_seen;            /* build of the last look */
static uint32_t builds;                /* push builds, 1, 2, ... */

/* node 0 */
static char *snap;                     /* snapshot shadow */
static uint8_t *snap_ok, *snap_skip, *snap_count;
static uint8_t *snap_forked;           /* named, not pushed, by the last
                                          fork */
static uint32_t *named_build;          /* build whose records name it */
static uint16_t *named_by;             /* creator of those records, or
                                          NAMED_BY_SEVERAL */
#define NAMED_BY_SEVERAL 0xffffu
static unsigned char *enc;             /* one page's encoding */
static uint32_t wanted[WANTED_MAX];    /* this build's, to send whole */
static size_t nwanted;

/* every home: wanted pages it changed and did not send (not wanted at
 * that program point, or a change too large for a diff): sent whole at
 * the next build at a program point that wants them, once per change */
#define UNSENT_MAX 1024u
static uint8_t *unsent;                /* per page: in unsent_list */
static uint32_t unsent_list[UNSENT_MAX];
static uint32_t nunsent;
#define PUSH_MAX_PAGES (PUSH_BYTES / sizeof(coh_diff_page_t) + \
                        PUSH_WANTED_BYTES / FULL_BYTES)
/* node 0: other homes' whole pages that only its own copies take (no
 * node but 0 wants them), applied with its departure, never sent */
#define LOCAL_BYTES ((size_t)256 << 10)
#define LOCAL_MAX_PAGES (LOCAL_BYTES / FULL_BYTES)

/* A push being built: entries at out (after room for the header), their
 * hashes in the invariants build (appended at the end). */
typedef struct section {
    char *out;
    size_t len, cap;
    uint32_t npages, max_pages;
    uint64_t *hashes;
} section_t;
static uint64_t sent_hashes[2 * PUSH_MAX_PAGES];
static uint64_t local_hashes[2 * LOCAL_MAX_PAGES];
static char *local_buf;
static size_t local_len;
static uint64_t base_hash;                 /* of the snapshot a diff is from */
static int enabled;

dsm_status_t coh_push_setup(void)
{
    enabled = dsm_config()->push_updates && coh.size > 1;
    stamp = coh_table_alloc(coh.npages * sizeof *stamp);
    if (!stamp)
        return DSM_ERR_NOMEM;
    if (!enabled)
        return DSM_OK;
    snap_seen = coh_table_alloc(coh.npages * sizeof *snap_seen);
    unsent = coh_table_alloc(coh.npages);
    if (!snap_seen || !unsent)
        return DSM_ERR_NOMEM;
    if (coh.rank != 0)
        return DSM_OK;
    snap = coh_table_alloc(coh.npages << DSM_PAGE_SHIFT);
    snap_ok = coh_table_alloc(coh.npages);
    snap_skip = coh_table_alloc(coh.npages);
    snap_count = coh_table_alloc(coh.npages);
    snap_forked = coh_table_alloc(coh.npages);
    named_build = coh_table_alloc(coh.npages * sizeof *named_build);
    named_by = coh_table_alloc(coh.npages * sizeof *named_by);
    enc = coh_table_alloc(DSM_DIFF_MAX_ENCODED(DSM_PAGE_SIZE));
    local_buf = coh_table_alloc(LOCAL_BYTES);
    if (!snap || !snap_ok || !snap_skip || !snap_count || !snap_forked ||
        !named_build || !named_by || !enc || !local_buf)
        return DSM_ERR_NOMEM;
    dsm_sys_dump_exclude(snap, coh.npages << DSM_PAGE_SHIFT);
    return DSM_OK;
}

void coh_push_installed(size_t first, size_t n)
{
    if (!stamp)
        return;
    uint32_t now = atomic_load_explicit(&clock2, memory_order_relaxed);
    for (size_t i = first; i < first + n; i++)
        stamp[i] = now;
}

void coh_push_home_moved(size_t index)
{
    if (snap_ok)
        snap_ok[index] = 0;
}

int coh_push_kept(size_t index)
{
    return kept_mark && stamp && stamp[index] == kept_mark;
}

/* FNV-1a over a page: the invariants build's check of an applied push. */
static uint64_t page_hash(const void *page)
{
    const unsigned char *p = page;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < DSM_PAGE_SIZE; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* A whole page: one run of every word, no masks (coh_diff.h). */
static int is_full(const unsigned char *diff, size_t len)
{
    uint16_t run[2];
    if (len != FULL_BYTES)
        return 0;
    memcpy(run, diff, sizeof run);
    return run[0] == 0 &&
           run[1] == ((DSM_PAGE_SIZE / DSM_DIFF_WORD) | DSM_DIFF_FULL_RUN);
}

/* Append one entry (a diff of n bytes in enc, or the whole page when
 * full) to the section, its hashes counted in its room; 0 when it does
 * not fit. */
static size_t put_entry(size_t p, const char *page, size_t n, int full,
                        section_t *sec)
{
    size_t body = full ? FULL_BYTES : n;
    size_t need = sizeof(coh_diff_page_t) + body;
    if (sec->npages == sec->max_pages ||
        need + 2 * (sec->npages + 1) * sizeof(uint64_t) > sec->cap - sec->len)
        return 0;
    coh_diff_page_t hdr = {(uint32_t)p, (uint32_t)body};
    char *o = sec->out + sec->len;
    memcpy(o, &hdr, sizeof hdr);
    if (full) {
        /* one run of every word, no masks (coh_diff.h) */
        uint16_t run[2] = {0, (uint16_t)(DSM_PAGE_SIZE / DSM_DIFF_WORD) |
                                  DSM_DIFF_FULL_RUN};
        memcpy(o + sizeof hdr, run, sizeof run);
        memcpy(o + sizeof hdr + sizeof run, page, DSM_PAGE_SIZE);
    } else if (n) {
        memcpy(o + sizeof hdr, enc, n);
    }
    sec->hashes[2 * sec->npages] = DSM_INVARIANTS_ON ? page_hash(page) : 0;
    sec->hashes[2 * sec->npages + 1] = full ? 0 : base_hash;
    sec->npages++;
    sec->len += need;
    return need;
}

/* Another node's records name the page at this build. */
static int named_by_other(size_t p)
{
    return named_build[p] == builds && named_by[p] != 0;
}

/* A page homed here whose change this build does not send: if some
 * node wants it, a later build at its program point sends it whole. */
static void unsent_note(size_t p)
{
    if (unsent[p] || nunsent == UNSENT_MAX || !coh_want_any(p))
        return;
    unsent[p] = 1;
    unsent_list[nunsent++] = (uint32_t)p;
}

/* Its change went out (a diff or the whole page). */
static void unsent_clear(size_t p) { unsent[p] = 0; }

/* Calls take(p, ctx) for each unsent page not looked at in this build,
 * still homed and shared here and wanted at this build's program point
 * (or anywhere: any_point); forgets those taken (take returns 1), those
 * nobody wants any more and those no longer homed here. */
static void unsent_each(int any_point, int (*take)(size_t, void *),
                        void *ctx)
{
    uint32_t kept = 0;
    for (uint32_t k = 0; k < nunsent; k++) {
        size_t p = unsent_list[k];
        uint8_t flags = atomic_load(&coh.pages[p].flags);
        if (!unsent[p] || !coh_want_any(p) ||
            (flags & (PF_HOME | PF_SHARED)) != (PF_HOME | PF_SHARED)) {
            unsent[p] = 0;
            continue;
        }
        if (snap_seen[p] != builds && coh_want_wanted(p, any_point) &&
            take(p, ctx)) {
            snap_seen[p] = builds;
            unsent[p] = 0;
            continue;
        }
        unsent_list[kept++] = (uint32_t)p;
    }
    nunsent = kept;
}

/* A wanted page whose change the diff does not carry: sent whole in the
 * second pass (push_wanted), with the room for wanted pages.  At a join,
 * wherever it is wanted: the readers drop their copies when the next
 * fork carries this departure, at that fork's program point, which node
 * 0 does not know yet. */
/* Into this build's wanted pages, if there is room (also unsent_each's
 * take on node 0). */
static int defer_whole(size_t p, void *unused)
{
    (void)unused;
    if (nwanted == WANTED_MAX)
        return 0;
    wanted[nwanted++] = (uint32_t)p;
    snap_ok[p] = 0;   /* until it is sent */
    return 1;
}

static int defer_wanted(size_t p, int kind)
{
    if (!coh_want_wanted(p, kind == COH_PUSH_JOIN) || !defer_whole(p, NULL)) {
        unsent_note(p);
        return 0;
    }
    return 1;
}

/* One page named at this build: push its change (or, when readers may
 * have lost the chain of snapshots, the whole page) when small.  At a
 * fork, a named page left out is marked for the region's first barrier. */
static void push_page(size_t p, int kind, section_t *sec)
{
    coh_page_t *pg = &coh.pages[p];
    uint8_t flags = atomic_load(&pg->flags);
    if (snap_seen[p] == builds ||
        (flags & (PF_HOME | PF_SHARED)) != (PF_HOME | PF_SHARED))
        return;
    snap_seen[p] = builds;
    size_t put = 0;
    if (kind == COH_PUSH_FORK)
        snap_forked[p] = 1;   /* cleared below when pushed */
    char *page = coh_page_rt(p), *base = snap + (p << DSM_PAGE_SHIFT);
    if (named_by_other(p) && kind == COH_PUSH_JOIN &&
        sec->len + sizeof(coh_diff_page_t) + FULL_BYTES <= sec->cap / 4 * 3) {
        /* another node wrote it in the epoch: its copy (eager non-home,
         * kept writable; or written and released) is no snapshot of
         * ours, but the whole page, which holds its diff, may replace it:
         * no refresh get for the other writers of a shared page at the
         * next fork.  Only at joins (their departure rides the FORK, and
         * node 0 runs alone meanwhile): inside a region 4 KiB more per
         * barrier and page.  At most 3/4 of the room: the rest for node
         * 0's small changes; past it, the diff below (the writers drop
         * their copies) */
        memcpy(base, page, DSM_PAGE_SIZE);
        snap_ok[p] = 1;
        snap_skip[p] = 0;
        snap_forked[p] = 0;
        if (put_entry(p, page, 0, 1, sec)) {
            unsent_clear(p);
        } else {
            snap_ok[p] = 0;
            unsent_note(p);
        }
        return;
    }
    if (snap_skip[p]) {
        if (defer_wanted(p, kind))
            return;
        snap_skip[p]--;
        return;
    }
    if (!snap_ok[p]) {
        if (defer_wanted(p, kind))
            return;
        /* the first snapshot; readers' copies are of unknown age, so the
         * next push, if the change is small, is the whole page */
        memcpy(base, page, DSM_PAGE_SIZE);
        snap_ok[p] = 1;
        snap_count[p] = PUSH_FULL_EVERY - 1;
        return;
    }
    size_t n = dsm_diff_encode_within(page, base, DSM_PAGE_SIZE, enc,
                                      PUSH_PAGE_BYTES);
    if (n > PUSH_PAGE_BYTES) {
        if (defer_wanted(p, kind))
            return;
        /* a large change: readers fetch it; stop snapshotting for a while */
        snap_ok[p] = 0;
        snap_skip[p] = PUSH_SKIP;
        return;
    }
    base_hash = DSM_INVARIANTS_ON ? page_hash(base) : 0;
    if (n && dsm_diff_apply(base, DSM_PAGE_SIZE, enc, n, NULL) != DSM_OK)
        dsm_fatal("pushed updates: a diff of page %zu does not apply", p);
    /* now and then the whole page, for readers that fetched it again (a
     * lock, their own write) and so no longer hold the last snapshot */
    int full = ++snap_count[p] % PUSH_FULL_EVERY == 0;
    /* readers whose copy the fork dropped (or that had none: a whole
     * page reaches valid copies only) fetch it during the region, after
     * the fork, and are out of the chain: the region's first barrier or
     * its join sends the whole page, after which forks and barriers keep
     * their copies */
    if (snap_forked[p] && kind != COH_PUSH_FORK) {
        snap_forked[p] = 0;
        full = 1;
    }
    put = put_entry(p, page, n, full, sec);
    if (!put && full) {
        full = 0;
        put = put_entry(p, page, n, 0, sec);
    }
    if (!put) {   /* no room: readers drop the page; start again later */
        snap_ok[p] = 0;
        unsent_note(p);
        return;
    }
    unsent_clear(p);
    if (kind == COH_PUSH_FORK && !full)
        snap_forked[p] = 0;
}

/* The wanted pages of this build whose change was large or whose chain
 * of snapshots was broken: whole, in the room for wanted pages; the
 * snapshot becomes the page.  Left out: readers drop them, as before. */
static void push_wanted(int kind, section_t *sec)
{
    for (size_t k = 0; k < nwanted; k++) {
        size_t p = wanted[k];
        char *page = coh_page_rt(p);
        if (!put_entry(p, page, 0, 1, sec)) {
            unsent_note(p);
            continue;
        }
        coh_want_spend(p);
        unsent_clear(p);
        memcpy(snap + (p << DSM_PAGE_SHIFT), page, DSM_PAGE_SIZE);
        snap_ok[p] = 1;
        snap_skip[p] = 0;
        snap_count[p] = 0;
        /* a fork's whole page reaches valid copies only (as above) */
        if (kind != COH_PUSH_FORK)
            snap_forked[p] = 0;
    }
    nwanted = 0;
}

/* The whole pages other homes pushed at their arrivals: each goes on
 * when its home's records alone name it at this build (another writer's
 * diff may have reached the home after the arrival was built) and the
 * page is still homed there; into the departure while a node other than
 * 0 wants it, else to node 0's copy only (local). */
static void push_arrivals(const unsigned char *const *arrivals,
                          const size_t *arrival_len, section_t *sec,
                          section_t *local)
{
    for (int src = 1; src < coh.size; src++) {
        const unsigned char *push = arrivals[src];
        if (!arrival_len[src])
            continue;
        coh_msg_diff_t hdr;
        memcpy(&hdr, push, sizeof hdr);
        size_t pos = sizeof hdr;
        for (uint32_t k = 0; k < hdr.npages; k++) {
            uint32_t p;
            const unsigned char *body;
            size_t body_len;
            coh_wire_diff_next(push, &pos, &p, &body, &body_len);
            /* named at this build by its home alone, or by nobody (a
             * change of an earlier epoch, sent where it is read) */
            if (!is_full(body, body_len) ||
                (named_build[p] == builds && named_by[p] != (uint16_t)src) ||
                coh.pages[p].home != src)
                continue;
            const char *page = (const char *)body + 4;
            if (!(coh_want_relay_spend(p) && put_entry(p, page, 0, 1, sec)))
                put_entry(p, page, 0, 1, local);
        }
    }
}

/* Every page the write-notice records name, in record and range order. */
typedef struct named {
    const unsigned char *records;
    size_t pos;
    uint32_t left;                   /* records not yet opened */
    uint32_t nranges, range;         /* of the open record */
    const unsigned char *ranges;
    size_t page, end;                /* the open range: [page, end) */
    uint32_t creator;                /* of the open record */
} named_t;

static named_t named_first(const char *records, uint32_t nrecords)
{
    named_t it = {.records = (const unsigned char *)records,
                  .left = nrecords};
    return it;
}

/* Moves to the next named page (it->page); 0 when there is none. */
static int named_next(named_t *it)
{
    if (it->page + 1 < it->end) {
        it->page++;
        return 1;
    }
    for (;;) {
        if (it->range < it->nranges) {
            coh_range_t rg;
            memcpy(&rg, it->ranges + it->range++ * sizeof rg, sizeof rg);
            if (rg.count == 0)
                continue;
            it->page = rg.first;
            it->end = (size_t)rg.first + rg.count;
            return 1;
        }
        if (it->left == 0)
            return 0;
        it->left--;
        coh_record_hdr_t rec;
        coh_wire_record_next(it->records, &it->pos, &rec, &it->ranges);
        it->nranges = rec.nranges;
        it->creator = rec.creator;
        it->range = 0;
    }
}

static section_t section_start(char *out, size_t cap, uint64_t *hashes,
                               uint32_t max_pages)
{
    section_t sec = {out, sizeof(coh_msg_diff_t), cap, 0, max_pages, hashes};
    return sec;
}

/* The header and the hashes around the entries: the section's bytes, 0
 * when it has none. */
static size_t section_finish(section_t *sec)
{
    if (!sec->npages)
        return 0;
    uint32_t nhash = DSM_INVARIANTS_ON ? 2 * sec->npages : 0;
    coh_msg_diff_t hdr = {sec->npages, nhash};
    memcpy(sec->out, &hdr, sizeof hdr);
    memcpy(sec->out + sec->len, sec->hashes, nhash * sizeof(uint64_t));
    return sec->len + nhash * sizeof(uint64_t);
}

static uint32_t next_build(void)
{
    if (++builds == 0)   /* snap_seen's 0 means never */
        builds = 1;
    return builds;
}

size_t coh_push_build(const char *records, size_t records_len,
                      uint32_t nrecords, int kind,
                      const unsigned char *const *arrivals,
                      const size_t *arrival_len, char *out, size_t cap)
{
    (void)records_len;
    local_len = 0;
    if (!enabled || coh.rank != 0)
        return 0;
    size_t cap_all = cap < PUSH_BYTES + PUSH_WANTED_BYTES
                         ? cap : PUSH_BYTES + PUSH_WANTED_BYTES;
    if (cap_all < sizeof(coh_msg_diff_t))
        return 0;
    /* node 0's small changes first, in the room they always had */
    section_t sec = section_start(out, cap_all < PUSH_BYTES ? cap_all
                                                            : PUSH_BYTES,
                                  sent_hashes, PUSH_MAX_PAGES);
    next_build();
    for (named_t it = named_first(records, nrecords); named_next(&it);) {
        size_t p = it.page;
        if (named_build[p] != builds) {
            named_build[p] = builds;
            named_by[p] = (uint16_t)it.creator;
        } else if (named_by[p] != it.creator) {
            named_by[p] = NAMED_BY_SEVERAL;
        }
    }
    nwanted = 0;
    for (named_t it = named_first(records, nrecords); named_next(&it);)
        push_page(it.page, kind, &sec);
    /* wanted here, changed at an earlier build that did not send them */
    unsent_each(kind == COH_PUSH_JOIN, defer_whole, NULL);
    sec.cap = cap_all;
    push_wanted(kind, &sec);
    if (arrivals) {
        section_t local = section_start(local_buf, LOCAL_BYTES, local_hashes,
                                        LOCAL_MAX_PAGES);
        push_arrivals(arrivals, arrival_len, &sec, &local);
        local_len = section_finish(&local);
    }
    COH_STAT_ADD(pushes_sent, sec.npages);
    return section_finish(&sec);
}

/* Page p, whole, into the arrival being built (sec); 0 when there is no
 * room.  Every thread of this node is in the barrier: the page is final
 * unless another node wrote it in this epoch, which node 0 sees (its
 * diffs of earlier epochs were acknowledged before their notices). */
static int arrival_take(size_t p, void *sec)
{
    if (!put_entry(p, coh_page_rt(p), 0, 1, sec))
        return 0;
    coh_want_spend(p);
    return 1;
}

size_t coh_push_arrival(const char *records, uint32_t nrecords, int join,
                        char *out, size_t cap)
{
    if (!enabled || coh.rank == 0)
        return 0;
    if (cap > PUSH_WANTED_BYTES)
        cap = PUSH_WANTED_BYTES;
    if (cap < sizeof(coh_msg_diff_t))
        return 0;
    section_t sec = section_start(out, cap, sent_hashes, PUSH_MAX_PAGES);
    next_build();
    /* a join pushes a changed page wherever it is wanted: its departure
     * rides the next fork, whose program point is not known yet.  An
     * eager page is named at every release, changed or not: changed when
     * its last release found it so (eager_idle 0); unchanged, it goes
     * where it is wanted at this build's program point only, as its
     * readers' copies are dropped by the notice otherwise */
    for (named_t it = named_first(records, nrecords); named_next(&it);) {
        size_t p = it.page;
        uint8_t flags = atomic_load(&coh.pages[p].flags);
        if (snap_seen[p] == builds ||
            (flags & (PF_HOME | PF_SHARED)) != (PF_HOME | PF_SHARED))
            continue;
        snap_seen[p] = builds;
        int changed = !(flags & PF_EAGER) || coh.pages[p].eager_idle == 0;
        if (coh_want_wanted(p, join && changed) && arrival_take(p, &sec))
            unsent_clear(p);
        else if (changed)
            unsent_note(p);
    }
    unsent_each(join, arrival_take, &sec);
    COH_STAT_ADD(pushes_sent, sec.npages);
    return section_finish(&sec);
}

/* A valid copy of ours, clean (written copies were diffed to the home at
 * our release, so the home's page holds our writes), of a page another
 * node homes: read-only, or eager non-home (writable, its twin equal to
 * it since the release before this event), or prefetched and not yet
 * mapped (a whole page only), or none but registered with the home (a
 * whole page only: it becomes a prefetched copy).  A whole page is what a
 * fetch at the build would give (node 0's page, or another home's at its
 * arrival, which no other node wrote since: node 0 checked).  A diff
 * needs a page node 0 homes and a copy equal to node 0's snapshot:
 * unchanged since event K - 1 (stamp; an eager copy's release of a
 * change stamps it). */
static int takes_push(size_t p, int full)
{
    const coh_page_t *pg = &coh.pages[p];
    uint8_t flags = atomic_load(&pg->flags);
    int state = atomic_load(&pg->state);
    int clean = state == PS_READONLY && !(flags & (PF_EAGER | PF_TWIN));
    int eager = state == PS_WRITABLE &&
                (flags & (PF_EAGER | PF_TWIN)) == (PF_EAGER | PF_TWIN);
    /* a prefetched copy not yet mapped: a whole page is a newer fetch;
     * so it is for a dropped copy the home still counts as a reader (a
     * page wanted at one program point, dropped by the notices of the
     * epochs between: coh_want.c) */
    int fetched = full && (state == PS_FETCHED ||
                           (state == PS_INVALID && (flags & PF_REGISTERED)));
    return (clean || eager || fetched) &&
           !(flags & (PF_HOME | PF_DIRECT | PF_REFRESH)) &&
           (full || (pg->home == 0 && stamp[p] < 2 * events));
}

void coh_push_begin(void)
{
    /* gets from now on may see writes after the departure or fork */
    atomic_store_explicit(&clock2, 2 * events + 2, memory_order_relaxed);
    kept_mark = 2 * events + 1;
}

void coh_push_end(void)
{
    kept_mark = 0;
    local_len = 0;   /* node 0: for this event only */
    events++;
}

void coh_push_apply_local(void)
{
    if (coh.rank == 0 && local_len) {
        coh_push_apply((const unsigned char *)local_buf, local_len);
        local_len = 0;
    }
}

void coh_push_apply(const unsigned char *push, size_t len)
{
    if (!len || !stamp)
        return;
    coh_msg_diff_t hdr;
    memcpy(&hdr, push, sizeof hdr);
    size_t pos = sizeof hdr;
    const unsigned char *hash = push + len - (size_t)hdr.aux * 8;
    if (hdr.aux && hdr.aux != 2 * hdr.npages)
        dsm_fatal("pushed updates: %u hashes for %u pages", hdr.aux,
                  hdr.npages);
    size_t applied = 0;
    for (uint32_t k = 0; k < hdr.npages; k++) {
        uint32_t p;
        const unsigned char *diff;
        size_t diff_len;
        coh_wire_diff_next(push, &pos, &p, &diff, &diff_len);
        coh_page_lock(p);
        int full = is_full(diff, diff_len);
        if (takes_push(p, full)) {
            uint64_t want[2] = {0, 0};
            if (hdr.aux)
                memcpy(want, hash + (size_t)k * 16, sizeof want);
            if (hdr.aux && !full && page_hash(coh_page_rt(p)) != want[1])
                dsm_fatal("invariant violated: U1: a copy that takes a "
                          "pushed diff equals node 0's snapshot (page %u "
                          "at push event %u: stamp %u, state %u, flags "
                          "0x%x)", p, events, stamp[p],
                          atomic_load(&coh.pages[p].state),
                          atomic_load(&coh.pages[p].flags));
            if (dsm_diff_apply(coh_page_rt(p), DSM_PAGE_SIZE, diff, diff_len,
                               NULL) != DSM_OK)
                dsm_fatal("pushed update of page %u malformed", p);
            /* a dropped copy taking a whole page: mapped at its first
             * access, as a prefetched one (coh_fault.c) */
            if (atomic_load(&coh.pages[p].state) == PS_INVALID)
                atomic_store_explicit(&coh.pages[p].state, PS_FETCHED,
                                      memory_order_release);
            /* an eager copy's next diff is from the page as pushed */
            if (atomic_load(&coh.pages[p].flags) & PF_TWIN)
                memcpy(coh_page_twin(p), coh_page_rt(p), DSM_PAGE_SIZE);
            stamp[p] = kept_mark;
            applied++;
            if (hdr.aux && page_hash(coh_page_rt(p)) != want[0])
                dsm_fatal("invariant violated: U1: a page updated by a "
                          "push equals its home's copy at the push's "
                          "build (page %u at push event %u)", p, events);
        }
        coh_check_page(p, "a pushed update");
        coh_page_unlock(p);
    }
    COH_STAT_ADD(pushes_applied, applied);
}
