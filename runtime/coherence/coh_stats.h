/*
 * coh_stats.h - per-node protocol statistics.
 * Layer: coherence.  COH_STAT_ADD is async-signal-safe (relaxed atomics).
 * The report at finalize is coh_report.h's.
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
        parallel_regions, protocol_ns;
} coh_stats_t;

extern coh_stats_t coh_stats;

#define COH_STAT_ADD(field, n)                                                \
    atomic_fetch_add_explicit(&coh_stats.field, (uint64_t)(n),                \
                              memory_order_relaxed)

#endif
