/*
 * coh_stats.c - statistics counters, dsm_stats_get and the DSM_STATS report.
 * Layer: coherence.  dsm_stats_get: any thread; report: at finalize.
 */
#include "coh_stats.h"

#include <stdio.h>
#include <string.h>

#include "base_config.h"
#include "coh_msg.h"
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
    out->pages_prefetched = LOAD(pages_prefetched);
    out->prefetch_hits = LOAD(prefetch_hits);
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

static const char *const am_names[DSM_TP_AM_MAX_ID] = {
    [COH_AM_SHARE_REQ] = "share_req",
    [COH_AM_SHARE_ACK] = "share_ack",
    [COH_AM_BARRIER_ARRIVE] = "barrier_arrive",
    [COH_AM_BARRIER_DEPART] = "barrier_depart",
    [COH_AM_LOCK_REQ] = "lock_req",
    [COH_AM_LOCK_GRANT] = "lock_grant",
    [COH_AM_LOCK_RELEASE] = "lock_release",
    [COH_AM_HEAP_FREE] = "heap_free",
    [COH_AM_HEAP_SIZE_REQ] = "heap_size_req",
    [COH_AM_HEAP_SIZE_REP] = "heap_size_rep",
    [COH_AM_DIFF] = "diff",
    [COH_AM_DIFF_ACK] = "diff_ack",
    [COH_AM_MIGRATE_DONE] = "migrate_done",
    [COH_AM_MIGRATE_GO] = "migrate_go",
    [COH_AM_ATOMIC_REQ] = "atomic_req",
    [COH_AM_ATOMIC_REP] = "atomic_rep",
};

#define FIELDS(X)                                                             \
    X(read_faults) X(write_faults) X(pages_fetched) X(twins) X(diffs_sent)    \
    X(diff_bytes_sent) X(diff_bytes_applied) X(write_notices_sent)            \
    X(write_notices_received) X(invalidations) X(barriers) X(lock_acquires)   \
    X(messages_sent) X(bytes_sent) X(rma_gets) X(rma_get_bytes) X(rma_puts)   \
    X(rma_put_bytes) X(atomics) X(pages_migrated) X(eager_pages)            \
    X(refreshes) X(direct_pages) X(flush_acquires)               \
    X(pages_prefetched) X(prefetch_hits) X(protocol_ns)

/* A message kind's name; kinds of the layers above are numbered. */
static const char *am_name(int id, char buf[16])
{
    if (am_names[id])
        return am_names[id];
    snprintf(buf, 16, "am%d", id);
    return buf;
}

static void report_text(FILE *f, const dsm_stats_t *s,
                        const dsm_tp_counters_t *tp)
{
    fprintf(f, "dsm stats node %d/%d:\n", coh.rank, coh.size);
#define X(name) fprintf(f, "  %-24s %llu\n", #name, (unsigned long long)s->name);
    FIELDS(X)
#undef X
    char buf[16];
    for (int i = 0; i < DSM_TP_AM_MAX_ID; i++)
        if (tp->am_sent[i])
            fprintf(f, "  msg %-20s %llu msgs %llu bytes\n", am_name(i, buf),
                    (unsigned long long)tp->am_sent[i],
                    (unsigned long long)tp->am_bytes[i]);
}

static void report_json(FILE *f, const dsm_stats_t *s,
                        const dsm_tp_counters_t *tp)
{
    fprintf(f, "{\"node\": %d, \"nodes\": %d", coh.rank, coh.size);
#define X(name) fprintf(f, ", \"%s\": %llu", #name, (unsigned long long)s->name);
    FIELDS(X)
#undef X
    fprintf(f, ", \"messages\": {");
    int first = 1;
    char buf[16];
    for (int i = 0; i < DSM_TP_AM_MAX_ID; i++)
        if (tp->am_sent[i]) {
            fprintf(f, "%s\"%s\": {\"count\": %llu, \"bytes\": %llu}",
                    first ? "" : ", ", am_name(i, buf),
                    (unsigned long long)tp->am_sent[i],
                    (unsigned long long)tp->am_bytes[i]);
            first = 0;
        }
    fprintf(f, "}}\n");
}

void coh_stats_report(void)
{
    const dsm_config_t *cfg = dsm_config();
    if (cfg->stats == DSM_STATS_OFF)
        return;
    dsm_stats_t s;
    dsm_tp_counters_t tp;
    dsm_stats_get(&s);
    dsm_tp_counters_get(&tp);
    FILE *f = cfg->stats == DSM_STATS_JSON ? stdout : stderr;
    int close_it = 0;
    if (cfg->stats_file[0]) {
        /* one file per node: "%d" in DSM_STATS_FILE becomes the node */
        char name[300];
        const char *mark = strstr(cfg->stats_file, "%d");
        if (mark)
            snprintf(name, sizeof name, "%.*s%d%s",
                     (int)(mark - cfg->stats_file), cfg->stats_file, coh.rank,
                     mark + 2);
        else
            snprintf(name, sizeof name, "%s", cfg->stats_file);
        f = fopen(name, "a");
        if (!f) {
            perror(name);
            return;
        }
        close_it = 1;
    }
    if (cfg->stats == DSM_STATS_JSON)
        report_json(f, &s, &tp);
    else
        report_text(f, &s, &tp);
    fflush(f);
    if (close_it)
        fclose(f);
}
