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

/* Every counter of dsm_stats_t, once, in the order the job's table shows
 * them: X(name, COH) is kept in coh_stats below, X(name, TP) comes from
 * the transport's counters.  dsm_stats_get, the table and the JSON
 * document are generated from this list, and a member of dsm_stats_t
 * missing here fails the build (coh_stats.c), so a new counter cannot be
 * left out of the report. */
#define COH_STATS_COUNTERS(X)                                                 \
    X(read_faults, COH)                                                       \
    X(write_faults, COH)                                                      \
    X(pages_fetched, COH)                                                     \
    X(twins, COH)                                                             \
    X(diffs_sent, COH)                                                        \
    X(diff_bytes_sent, COH)                                                   \
    X(diff_bytes_applied, COH)                                                \
    X(write_notices_sent, COH)                                                \
    X(write_notices_received, COH)                                            \
    X(invalidations, COH)                                                     \
    X(barriers, COH)                                                          \
    X(lock_acquires, COH)                                                     \
    X(messages_sent, TP)                                                      \
    X(bytes_sent, TP)                                                         \
    X(rma_gets, TP)                                                           \
    X(rma_get_bytes, TP)                                                      \
    X(rma_puts, TP)                                                           \
    X(rma_put_bytes, TP)                                                      \
    X(atomics, TP)                                                            \
    X(pages_migrated, COH)                                                    \
    X(eager_pages, COH)                                                       \
    X(refreshes, COH)                                                         \
    X(direct_pages, COH)                                                      \
    X(flush_acquires, COH)                                                    \
    X(pages_prefetched, COH)                                                  \
    X(prefetch_hits, COH)                                                     \
    X(pushes_sent, COH)                                                       \
    X(pushes_applied, COH)                                                    \
    X(parallel_regions, COH)                                                  \
    X(protocol_ns, COH)                                                       \
    X(acquire_gets, COH)                                                      \
    X(acquire_rounds, COH)                                                    \
    X(prefetch_mapped, COH)

#define COH_STATS_FIELD_COH(name) _Atomic uint64_t name;
#define COH_STATS_FIELD_TP(name)
#define COH_STATS_FIELD(name, where) COH_STATS_FIELD_##where(name)

typedef struct coh_stats {
    COH_STATS_COUNTERS(COH_STATS_FIELD)
} coh_stats_t;

extern coh_stats_t coh_stats;

#define COH_STAT_ADD(field, n)                                                \
    atomic_fetch_add_explicit(&coh_stats.field, (uint64_t)(n),                \
                              memory_order_relaxed)

#endif
