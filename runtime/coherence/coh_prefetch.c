/*
 * coh_prefetch.c - bulk prefetch learned per program point.  Ordinary
 * OpenMP programs repeat their steps: the loop after a given barrier (or
 * the region of a given microtask) reads the same pages of other nodes
 * every time it runs, and each of them costs a fault and a round trip to
 * its home, one page at a time when the access is strided (a sweep along
 * another axis, a transpose).  Across hosts that round trip, not the
 * bytes, is what such a step costs.
 *
 * So each node records the pages it fetched on demand during an epoch
 * (coh_prefetch_note, from the fault handler) under the label of the
 * program point where the epoch began: the barrier's call site or the
 * parallel region's microtask, given by the fork-join layer
 * (dsm_coh_epoch_next).  When an epoch with a known label begins again,
 * after the acquire that starts it, the node fetches the recorded pages
 * that are invalid here in runs, one get per run of consecutive pages of
 * one home, the gets of up to 64 runs in flight at once, into the
 * runtime view.  At one occurrence of the label in RELEARN_EVERY (the
 * first included) it marks them PS_FETCHED: still PROT_NONE, so the
 * first access faults, but the fault only maps the copy (no round trip),
 * and it is recorded again, so the set follows the program: a copy
 * nobody touches is dropped by the next notice for its page, is not
 * recorded, and is not prefetched again.  At the other occurrences it
 * maps them at once, read-only, one mprotect per run, and records them
 * as if read: a map-only fault costs a signal and an mprotect (about 4
 * us across the FFT kernel's transposes, 64 per node and transpose), so
 * the set learnt is trusted for a while and checked again at the next
 * learning occurrence.
 *
 * Why it is correct: a prefetch is a fetch made early, after the acquire
 * that begins the epoch, exactly like read-ahead: the home's copy then
 * holds every write this node's acquire requires; a later write it must
 * see comes with a notice at a later acquire, which drops the copy
 * (PS_FETCHED pages are invalidated like valid ones).  Only pages already
 * registered with their home are fetched (the home write-protects them
 * before anyone reads them: the share handshake of coh_fault.c), and only
 * from homes this node does not map (a mapped home's pages are read in
 * place or copied without a round trip).
 *
 * Layer: coherence.  coh_prefetch_note: the fault handler (async-signal-
 * safe: a store into a table mapped at start-up).  coh_prefetch_epoch:
 * the thread doing a barrier's or join's global part, or a fork's
 * export or import, protocol mutex held, while no other application
 * thread of the node touches sharable memory.
 */
#include <stdlib.h>
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "coh_check.h"
#include "coh_protocol.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "coherence.h"
#include "transport.h"

#define LOG_PAGES     ((size_t)1 << 20)   /* demand fetches per epoch */
#define LABELS        64                  /* program points remembered */
#define LABEL_RANGES  4096                /* ranges per program point */
#define RUN_PAGES     256u                /* pages per get */
#define RELEARN_EVERY 8u                  /* label occurrences per check */

typedef struct label_entry {
    uintptr_t label;                      /* 0: free */
    uint64_t used;                        /* last epoch it began */
    uint32_t prefetches;                  /* occurrences prefetched */
    uint32_t nranges;
    coh_range_t *ranges;                  /* [LABEL_RANGES] */
} label_entry_t;

static int enabled;
static uint32_t *epoch_log;
static _Atomic size_t epoch_len;
static label_entry_t labels[LABELS];
static coh_range_t *range_pool;
static uintptr_t current, pending;
static uint64_t epochs;

dsm_status_t coh_prefetch_setup(void)
{
    enabled = dsm_config()->prefetch && coh.size > 1;
    if (!enabled)
        return DSM_OK;
    epoch_log = coh_table_alloc(sizeof *epoch_log * LOG_PAGES);
    range_pool = coh_table_alloc(sizeof *range_pool * LABELS * LABEL_RANGES);
    if (!epoch_log || !range_pool)
        return DSM_ERR_NOMEM;
    for (int i = 0; i < LABELS; i++)
        labels[i].ranges = range_pool + (size_t)i * LABEL_RANGES;
    return DSM_OK;
}

void coh_prefetch_note(size_t index)
{
    if (!enabled || !current)
        return;
    size_t at = atomic_fetch_add_explicit(&epoch_len, 1,
                                          memory_order_relaxed);
    if (at < LOG_PAGES)
        epoch_log[at] = (uint32_t)index;
}

void dsm_coh_epoch_next(uintptr_t label) { pending = label; }

static label_entry_t *find(uintptr_t label, int create)
{
    size_t start = (label >> 4) % LABELS;
    label_entry_t *oldest = NULL;
    for (size_t k = 0; k < LABELS; k++) {
        label_entry_t *e = &labels[(start + k) % LABELS];
        if (e->label == label)
            return e;
        if (!e->label) {
            if (!create)
                return NULL;
            oldest = e;
            break;
        }
        if (!oldest || e->used < oldest->used)
            oldest = e;
    }
    if (!create)
        return NULL;
    oldest->label = label;
    oldest->nranges = 0;
    oldest->prefetches = 0;
    oldest->used = epochs;      /* not the evicted entry's age */
    return oldest;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The ended epoch's demand fetches become its label's set (replacing the
 * last one: the set follows the program).  An epoch that fetched more than
 * the log or the set holds keeps what fits, lowest pages first. */
static void remember(void)
{
    size_t n = atomic_exchange_explicit(&epoch_len, 0, memory_order_relaxed);
    if (!current)
        return;
    if (n > LOG_PAGES)
        n = LOG_PAGES;
    label_entry_t *e = find(current, n > 0);
    if (!e)
        return;
    qsort(epoch_log, n, sizeof *epoch_log, cmp_u32);
    uint32_t r = 0;
    for (size_t i = 0; i < n && r <= LABEL_RANGES;) {
        size_t j = i + 1;
        while (j < n && epoch_log[j] <= epoch_log[j - 1] + 1)
            j++;
        if (r == LABEL_RANGES)
            break;
        e->ranges[r].first = epoch_log[i];
        e->ranges[r].count = epoch_log[j - 1] - epoch_log[i] + 1;
        r++;
        i = j;
    }
    e->nranges = r;
}

/* A page worth fetching now: another node's page, invalid here,
 * registered with its home, which this node does not map. */
static int wanted(size_t index)
{
    const coh_page_t *pg = &coh.pages[index];
    return atomic_load(&pg->state) == PS_INVALID &&
           (atomic_load(&pg->flags) & (PF_HOME | PF_REGISTERED | PF_DIRECT)) ==
               PF_REGISTERED &&
           !dsm_tp_peer_mapped(pg->home, DSM_TP_SEG_REGION);
}

/* This prefetch maps its pages (not a learning occurrence). */
static int mapping;

/* A prefetched run has arrived: its pages become FETCHED copies, or,
 * when mapping, read-only ones, recorded as read. */
static void fetched(size_t first, size_t n)
{
    for (size_t p = first; p < first + n; p++) {
        atomic_store_explicit(&coh.pages[p].state,
                              mapping ? PS_READONLY : PS_FETCHED,
                              memory_order_release);
        coh_refresh_fetched(p, 1);   /* fetched again: wanted (coh_want.c) */
        if (mapping)
            coh_prefetch_note(p);
    }
    if (mapping)
        coh_protect(first, n, DSM_PROT_READ);
    for (size_t p = first; p < first + n; p++) {
        coh_check_page(p, "a prefetch");
        coh_page_unlock(p);
    }
    COH_STAT_ADD(pages_prefetched, n);
    if (mapping)
        COH_STAT_ADD(prefetch_mapped, n);
}

/* Runs locked for fetching (static: 64 runs of items are large for the
 * runtime stack); used under the protocol mutex only. */
static coh_runs_t batch = {.what = "prefetching", .fetched = fetched};

/* Lock and check a page for a run. */
static int take(size_t p)
{
    if (!wanted(p) || !coh_page_trylock(p))
        return 0;
    if (wanted(p))            /* again, under the lock */
        return 1;
    coh_page_unlock(p);
    return 0;
}

static void prefetch(label_entry_t *e)
{
    mapping = e->prefetches++ % RELEARN_EVERY != 0;
    for (uint32_t r = 0; r < e->nranges; r++) {
        size_t p = e->ranges[r].first;
        size_t end = p + e->ranges[r].count;
        if (end > coh.npages)
            end = coh.npages;
        while (p < end) {
            if (!take(p)) {
                p++;
                continue;
            }
            size_t first = p++, n = 1;
            int home = coh.pages[first].home;
            while (p < end && n < RUN_PAGES && coh.pages[p].home == home &&
                   take(p)) {
                p++;
                n++;
            }
            coh_runs_add(&batch, first, n, home);
        }
    }
    coh_runs_flush(&batch);
}

void coh_prefetch_epoch(uintptr_t label)
{
    /* the labels also tag wanted pages (coh_want.c): kept without
     * prefetching too */
    if (enabled)
        remember();
    current = label;
    pending = 0;
    epochs++;
    if (!label || !enabled)
        return;
    label_entry_t *e = find(label, 0);
    if (!e)
        return;
    e->used = epochs;
    prefetch(e);
}

uintptr_t coh_prefetch_pending(void) { return pending; }

uintptr_t coh_prefetch_current(void) { return current; }
