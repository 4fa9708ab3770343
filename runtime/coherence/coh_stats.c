/*
 * coh_stats.c - statistics counters and dsm_stats_get.  The job's report
 * at finalize (DSM_STATS) is coh_report*.c's.
 * Layer: coherence.  dsm_stats_get: any thread.
 */
#include "coh_stats.h"

#include <string.h>

#include "coh_state.h"
#include "transport.h"

coh_stats_t coh_stats;

#define LOAD(f) atomic_load_explicit(&coh_stats.f, memory_order_relaxed)

void dsm_stats_get(dsm_stats_t *out)
{
    dsm_tp_counters_t tp;
    memset(out, 0, sizeof *out);
    out->read_faults = LOAD(read_faults);
    out->write_faults = LOAD(write_faults);
    out->pages_fetched = LOAD(pages_fetched);
    out->twins = LOAD(twins);
    out->diffs_sent = LOAD(diffs_sent);
    out->diff_bytes_sent = LOAD(diff_bytes_sent);
    out->diff_bytes_applied = LOAD(diff_bytes_applied);
    out->write_notices_sent = LOAD(write_notices_sent);
    out->write_notices_received = LOAD(write_notices_received);
    out->invalidations = LOAD(invalidations);
    out->barriers = LOAD(barriers);
    out->lock_acquires = LOAD(lock_acquires);
    out->pages_migrated = LOAD(pages_migrated);
    out->eager_pages = LOAD(eager_pages);
    out->refreshes = LOAD(refreshes);
    out->direct_pages = LOAD(direct_pages);
    out->flush_acquires = LOAD(flush_acquires);
    out->parallel_regions = LOAD(parallel_regions);
    out->protocol_ns = LOAD(protocol_ns);
    if (!coh.initialized)
        return;
    dsm_tp_counters_get(&tp);
    for (int i = 0; i < DSM_TP_AM_MAX_ID; i++) {
        out->messages_sent += tp.am_sent[i];
        out->bytes_sent += tp.am_bytes[i];
    }
    out->rma_gets = tp.gets;
    out->rma_get_bytes = tp.get_bytes;
    out->rma_puts = tp.puts;
    out->rma_put_bytes = tp.put_bytes;
    out->atomics = tp.atomics;
}
