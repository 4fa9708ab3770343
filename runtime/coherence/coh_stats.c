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

/* Every counter of the list once: a dsm_stats_t member left out of it
 * makes the sizes differ. */
#define ONE(name, where) +1
_Static_assert(sizeof(dsm_stats_t) ==
                   (0 COH_STATS_COUNTERS(ONE)) * sizeof(uint64_t),
               "a dsm_stats_t counter is missing from COH_STATS_COUNTERS");
#undef ONE

#define GET_COH(name) out->name = LOAD(name);
#define GET_TP(name)
#define GET(name, where) GET_##where(name)

void dsm_stats_get(dsm_stats_t *out)
{
    dsm_tp_counters_t tp;
    memset(out, 0, sizeof *out);
    COH_STATS_COUNTERS(GET)
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
