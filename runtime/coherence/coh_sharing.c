/*
 * coh_sharing.c - per-page accounting for the sharing report (see
 * coh_sharing.h for what is counted and where the hooks are).
 *
 * Storage, all mapped at start-up (coh_table_alloc: reserved, touched as
 * used) and only when the accounting is on:
 *   - slot_of: per page of the space, 1 + the index of its record, or 0;
 *   - records: one coh_sharing_page_t per page that cost this node
 *     something, handed out in order of first cost (at most MAX_RECORDS;
 *     later pages are only counted as untracked);
 *   - node 0: epochs, per page, who wrote it barrier epoch by epoch.
 * A record is claimed with an atomic counter and a compare-and-swap on
 * slot_of, so the fault handler can claim one (no lock, no malloc); two
 * threads racing for one page waste a slot, nothing more.
 *
 * Timeline: bucket b of a page counts its events (faults, diffs, atomics,
 * home moves) in steps [b << shift, (b + 1) << shift).  When the steps
 * outgrow the buckets, the thread that takes the step halves the
 * resolution: buckets are merged pairwise (atomic exchanges: an event
 * landing meanwhile is never lost, at worst counted one bucket late).
 *
 * Layer: coherence.  Hooks: see coh_sharing.h; coh_sharing_fault_note runs
 * in the fault handler (atomics and the clock only).  The report readers:
 * the main thread at finalize, after the final barrier.
 */
#include "coh_sharing.h"

#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "base_time.h"
#include "coh_protocol.h"
#include "coh_state.h"
#include "coh_wire.h"
#include "coherence.h"
#include "sys_fault.h"

int coh_sharing_on;

#define MAX_RECORDS ((size_t)1 << 18)
#define THREAD_BITS 64
#define WRITER_MANY 0xFFFFu

static _Atomic uint32_t *slot_of;
static coh_sharing_page_t *records;
static size_t max_records;
static _Atomic size_t nrecords;
static _Atomic uint64_t untracked;
static _Atomic uint64_t fault_ns_total;
static _Atomic uint64_t atomic_calls, atomic_ns;

static _Atomic uint32_t steps;
static _Atomic unsigned shift;

static __thread __attribute__((tls_model("initial-exec"))) int thread_num = -1;

typedef struct epoch_entry {
    coh_sharing_epochs_t pub;
    uint16_t now;              /* this epoch's writers: node+1, MANY */
    uint16_t last;             /* the last epoch's (with a writer) */
} epoch_entry_t;
static epoch_entry_t *epochs;
static uint32_t epoch_count;

#define MAX_CHAINS 64
static coh_sharing_chain_t chains[MAX_CHAINS];
static struct { uintptr_t pc, cfa; } chain_key[MAX_CHAINS];
static size_t nchains;

#define SYNC_SITES 64
static coh_sharing_sync_site_t sync_sites[SYNC_SITES];
static _Atomic uintptr_t sync_keys[SYNC_SITES];

dsm_status_t coh_sharing_setup(void)
{
    const dsm_config_t *cfg = dsm_config();
    if (cfg->report == DSM_REPORT_OFF ||
        (cfg->stats == DSM_STATS_OFF && cfg->report != DSM_REPORT_SHARING))
        return DSM_OK;
    max_records = coh.npages < MAX_RECORDS ? coh.npages : MAX_RECORDS;
    slot_of = coh_table_alloc(sizeof *slot_of * coh.npages);
    records = coh_table_alloc(sizeof *records * max_records);
    if (coh.rank == 0)
        epochs = coh_table_alloc(sizeof *epochs * coh.npages);
    if (!slot_of || !records || (coh.rank == 0 && !epochs)) {
        dsm_log(DSM_LOG_WARN, "no memory for the sharing report's tables: "
                "no report");
        return DSM_OK;
    }
    coh_sharing_on = 1;
    return DSM_OK;
}

/* coherence.h: the OpenMP thread number this thread's faults are
 * recorded under (a TLS store; forkjoin calls it as a member starts). */
void dsm_coh_sharing_thread(int num) { thread_num = num; }

/* ---- records ---------------------------------------------------------------- */

static coh_sharing_page_t *record(size_t index)
{
    uint32_t s = atomic_load_explicit(&slot_of[index], memory_order_acquire);
    if (s)
        return &records[s - 1];
    size_t n = atomic_fetch_add_explicit(&nrecords, 1, memory_order_relaxed);
    if (n >= max_records) {
        atomic_fetch_add_explicit(&untracked, 1, memory_order_relaxed);
        return NULL;
    }
    atomic_store_explicit(&records[n].page, (uint32_t)index + 1,
                          memory_order_relaxed);
    uint32_t expect = 0;
    if (atomic_compare_exchange_strong(&slot_of[index], &expect,
                                       (uint32_t)n + 1))
        return &records[n];
    /* another thread claimed the page first: this slot stays unused */
    atomic_store_explicit(&records[n].page, 0, memory_order_relaxed);
    return &records[expect - 1];
}

#define ADD(r, field, n)                                                      \
    atomic_fetch_add_explicit(&(r)->field, (n), memory_order_relaxed)
#define OR(r, field, bits)                                                    \
    atomic_fetch_or_explicit(&(r)->field, (bits), memory_order_relaxed)

/* The bucket of the current phase: phase s (s >= 1) began with the s-th
 * step; what came before the first shares bucket 0 with it. */
static unsigned bucket(uint32_t s, unsigned sh)
{
    return (s ? s - 1 : 0) >> sh;
}

static void event(coh_sharing_page_t *r)
{
    unsigned b = bucket(atomic_load_explicit(&steps, memory_order_relaxed),
                        atomic_load_explicit(&shift, memory_order_relaxed));
    if (b >= COH_SHARING_BUCKETS)
        b = COH_SHARING_BUCKETS - 1;
    if (atomic_load_explicit(&r->timeline[b], memory_order_relaxed) <
        UINT16_MAX)
        ADD(r, timeline[b], 1);
}

static uint64_t thread_bit(void)
{
    int t = thread_num;
    if (t < 0)
        return 0;
    return (uint64_t)1 << (t < THREAD_BITS - 1 ? t : THREAD_BITS - 1);
}

static void mark_word(_Atomic uint64_t *mask, uintptr_t addr)
{
    unsigned w = (unsigned)((addr & (DSM_PAGE_SIZE - 1)) >> 3);
    atomic_fetch_or_explicit(&mask[w / 64], (uint64_t)1 << (w % 64),
                             memory_order_relaxed);
}

void coh_sharing_fault_note(size_t index, uintptr_t addr, uint8_t state,
                            uint8_t flags, int access, uint64_t t0)
{
    uint64_t ns = dsm_now_ns() - t0;
    atomic_fetch_add_explicit(&fault_ns_total, ns, memory_order_relaxed);
    int write = access != DSM_FAULT_READ;
    int home = (flags & PF_HOME) != 0;
    /* a prefetched copy (PS_FETCHED) moved like a fetched one, only
     * earlier, in bulk */
    int fetched = (state == PS_INVALID && !home) || state == PS_FETCHED;
    /* what the handler did: the state it found says (anything else was a
     * fault another thread had resolved already, which claims no record) */
    if (!fetched && !(state == PS_READONLY && write))
        return;
    coh_sharing_page_t *r = record(index);
    if (!r)
        return;
    ADD(r, fault_ns, ns);
    event(r);
    mark_word(r->touched, addr);
    if (write) {
        ADD(r, write_faults, 1);
        mark_word(r->written, addr);
        OR(r, threads_wrote, thread_bit());
    } else {
        ADD(r, read_faults, 1);
        OR(r, threads_read, thread_bit());
    }
    /* a read served by mapping a same-host home copies nothing */
    if (fetched && !(atomic_load_explicit(&coh.pages[index].flags,
                                          memory_order_relaxed) & PF_DIRECT))
        ADD(r, fetches, 1);
}

/* The words a diff changes: runs of { u16 word offset; u16 count (top
 * bit: no masks); masks; words } (coh_diff.h); encoded by this node. */
void coh_sharing_diff_note(size_t index, const void *diff, size_t len)
{
    coh_sharing_page_t *r = record(index);
    if (!r)
        return;
    ADD(r, diffs, 1);
    ADD(r, diff_bytes, len);
    event(r);
    const unsigned char *d = diff;
    size_t pos = 0, words = DSM_PAGE_SIZE / 8;
    while (len - pos >= 4) {
        uint16_t hdr[2];
        memcpy(hdr, d + pos, sizeof hdr);
        size_t off = hdr[0], cnt = hdr[1] & 0x7FFFu;
        int full = (hdr[1] & 0x8000u) != 0;
        if (off > words || cnt > words - off)
            return;
        for (size_t w = off; w < off + cnt; w++)
            atomic_fetch_or_explicit(&r->written[w / 64],
                                     (uint64_t)1 << (w % 64),
                                     memory_order_relaxed);
        pos += 4 + cnt * (full ? 8 : 9);
        if (pos > len)
            return;
    }
}

void coh_sharing_migrated_note(size_t index, int home)
{
    if (home != coh.rank)
        return;
    coh_sharing_page_t *r = record(index);
    if (!r)
        return;
    ADD(r, migrations, 1);
    event(r);
}

void coh_sharing_atomic_note(size_t index, uintptr_t addr, int load)
{
    coh_sharing_page_t *r = record(index);
    if (!r)
        return;
    ADD(r, atomics, 1);
    event(r);
    mark_word(r->touched, addr);
    if (load) {
        ADD(r, atomic_loads, 1);
        OR(r, threads_read, thread_bit());
    } else {
        mark_word(r->written, addr);
        OR(r, threads_wrote, thread_bit());
    }
}

/* ---- steps ------------------------------------------------------------------- */

static void merge_buckets(void)
{
    size_t n = atomic_load(&nrecords);
    if (n > max_records)
        n = max_records;
    for (size_t i = 0; i < n; i++) {
        _Atomic uint16_t *t = records[i].timeline;
        for (unsigned b = 0; b < COH_SHARING_BUCKETS / 2; b++) {
            uint32_t v = (uint32_t)atomic_exchange(&t[2 * b], 0) +
                         atomic_exchange(&t[2 * b + 1], 0);
            uint32_t cur = atomic_load(&t[b]);
            uint32_t sum = cur + v < UINT16_MAX ? cur + v : UINT16_MAX;
            atomic_fetch_add(&t[b], (uint16_t)(sum - cur));
        }
    }
}

static void step(void)
{
    uint32_t s = atomic_fetch_add(&steps, 1) + 1;
    unsigned sh = atomic_load(&shift);
    if (bucket(s, sh) >= COH_SHARING_BUCKETS) {
        merge_buckets();
        atomic_store(&shift, sh + 1);
    }
}

void coh_sharing_barrier_note(void) { step(); }

void coh_sharing_fork_note(void)
{
    step();
    if (coh.rank != 0)
        return;
    /* the place the region was opened from: a new one costs a full unwind
     * of the master's stack, a known one a short walk */
    dsm_sys_call_site_t cs;
    dsm_sys_call_site(&cs);
    if (!cs.outside)
        return;
    uint32_t now = atomic_load(&steps);
    for (size_t i = 0; i < nchains; i++)
        if (chain_key[i].pc == cs.outside && chain_key[i].cfa == cs.outside_cfa) {
            chains[i].forks++;
            chains[i].last_step = now;
            return;
        }
    if (nchains == MAX_CHAINS)
        return;
    dsm_sys_frame_t frames[SYS_CALLER_DEPTH];
    int n = dsm_sys_frames(frames, SYS_CALLER_DEPTH), first = 0;
    while (first < n && frames[first].ip != cs.outside)
        first++;
    coh_sharing_chain_t *c = &chains[nchains];
    c->nframes = 0;
    for (int k = first; k < n && c->nframes < COH_SHARING_CHAIN_FRAMES; k++)
        c->frame[c->nframes++] = frames[k];
    c->forks = 1;
    c->first_step = c->last_step = now;
    chain_key[nchains].pc = cs.outside;
    chain_key[nchains].cfa = cs.outside_cfa;
    nchains++;
}

/* ---- who wrote what, epoch by epoch (node 0) ---------------------------------- */

typedef struct epoch_walk {
    const void *records;
    size_t len;
    uint32_t nrecords;
} epoch_walk_t;

static void walk(const epoch_walk_t *w, int decide)
{
    size_t pos = 0;
    for (uint32_t k = 0; k < w->nrecords; k++) {
        coh_record_hdr_t rec;
        const unsigned char *ranges;
        coh_wire_record_next(w->records, &pos, &rec, &ranges);
        uint16_t self = (uint16_t)(rec.creator + 1);
        for (uint32_t i = 0; i < rec.nranges; i++) {
            coh_range_t range = coh_wire_range(ranges, i);
            for (size_t p = range.first; p < (size_t)range.first + range.count;
                 p++) {
                epoch_entry_t *e = &epochs[p];
                if (!decide) {
                    e->now = e->now == 0 || e->now == self ? self
                                                           : WRITER_MANY;
                    e->pub.writers |= (uint64_t)1 << (rec.creator < 63
                                                          ? rec.creator : 63);
                    continue;
                }
                if (e->now == 0)
                    continue;   /* decided at its first range */
                e->pub.write_epochs++;
                if (e->now == WRITER_MANY) {
                    e->pub.multi_epochs++;
                } else {
                    if (e->last && e->last != e->now)
                        e->pub.writer_changes++;
                    if ((uint32_t)(e->now - 1) != coh.pages[p].home)
                        e->pub.away_epochs++;
                }
                e->last = e->now;
                e->now = 0;
            }
        }
    }
}

void coh_sharing_epoch_note(const void *records, size_t len,
                            uint32_t nrecords)
{
    if (!epochs)
        return;
    epoch_walk_t w = {records, len, nrecords};
    epoch_count++;
    walk(&w, 0);
    walk(&w, 1);
}

/* ---- flush call sites ----------------------------------------------------------- */

uint64_t coh_sharing_sync_begin_note(void) { return dsm_now_ns() | 1; }

void coh_sharing_atomic_end_note(uint64_t t0)
{
    atomic_fetch_add_explicit(&atomic_calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&atomic_ns, dsm_now_ns() - t0,
                              memory_order_relaxed);
}

void coh_sharing_sync_end_note(uint64_t t0)
{
    uint64_t ns = dsm_now_ns() - t0;
    dsm_sys_call_site_t cs;
    dsm_sys_call_site(&cs);
    uintptr_t key = cs.outside ? cs.outside : cs.inside;
    if (!key)
        return;
    unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 58);
    for (unsigned k = 0; k < SYNC_SITES; k++) {
        unsigned s = (h + k) % SYNC_SITES;
        uintptr_t seen = atomic_load(&sync_keys[s]);
        if (seen == 0) {
            uintptr_t expect = 0;
            if (!atomic_compare_exchange_strong(&sync_keys[s], &expect, key) &&
                expect != key)
                continue;
            seen = key;
            sync_sites[s].pc = cs.outside;
            sync_sites[s].inside = cs.inside;
        }
        if (seen != key)
            continue;
        __atomic_fetch_add(&sync_sites[s].count, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&sync_sites[s].ns, ns, __ATOMIC_RELAXED);
        return;
    }
}

/* ---- report queries ----------------------------------------------------------- */

const coh_sharing_page_t *coh_sharing_pages(size_t *n)
{
    size_t k = atomic_load(&nrecords);
    *n = k < max_records ? k : max_records;
    return records;
}

uint64_t coh_sharing_untracked(void) { return atomic_load(&untracked); }
uint32_t coh_sharing_steps(void) { return atomic_load(&steps); }
unsigned coh_sharing_shift(void) { return atomic_load(&shift); }
uint64_t coh_sharing_fault_ns(void) { return atomic_load(&fault_ns_total); }
uint64_t coh_sharing_atomic_calls(void) { return atomic_load(&atomic_calls); }
uint64_t coh_sharing_atomic_ns(void) { return atomic_load(&atomic_ns); }
uint32_t coh_sharing_epoch_count(void) { return epoch_count; }

const coh_sharing_epochs_t *coh_sharing_epochs_of(size_t index)
{
    if (!epochs || index >= coh.npages || !epochs[index].pub.write_epochs)
        return NULL;
    return &epochs[index].pub;
}

const coh_sharing_chain_t *coh_sharing_chains(size_t *n)
{
    *n = nchains;
    return chains;
}

const coh_sharing_sync_site_t *coh_sharing_sync_sites(size_t *n)
{
    *n = SYNC_SITES;
    return sync_sites;
}
