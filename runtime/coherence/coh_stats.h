/*
 * coh_stats.h - per-node protocol statistics.
 * Layer: coherence.  COH_STAT_ADD is async-signal-safe (relaxed atomics).
 * coh_stats_report runs at dsm_finalize (stdio allowed there).
 */
#ifndef COH_STATS_H
#define COH_STATS_H

#include <stdatomic.h>
#include <stdint.h>

#include "dsm.h"

typedef struct coh_stats {
    _Atomic uint64_t read_faults, write_faults, pages_fetched, twins,
        diffs_sent, diff_bytes_sent, diff_bytes_applied, write_notices_sent,
        write_notices_received, invalidations, barriers, lock_acquires,
        pages_migrated, eager_pages, refreshes, direct_pages, flush_acquires,
        pages_prefetched, prefetch_hits, protocol_ns;
} coh_stats_t;

extern coh_stats_t coh_stats;

#define COH_STAT_ADD(field, n)                                                \
    atomic_fetch_add_explicit(&coh_stats.field, (uint64_t)(n),                \
                              memory_order_relaxed)

/* Print or write the summary selected by DSM_STATS (no-op when off). */
void coh_stats_report(void);

#endif
