/*
 * coh_report_table.c - the job's counters, as node 0 prints them: one
 * table (a row per counter, a column per node and a total, then messages
 * by kind and derived figures), or the counters' members of the one JSON
 * document.
 *
 * Layer: coherence.  Node 0's main thread at finalize (coh_report.c).
 */
#include <inttypes.h>
#include <string.h>

#include "coh_report.h"
#include "coh_stats.h"
#include "coherence.h"

/* Every counter of dsm_stats_t, in the order of the table (coh_stats.h's
 * one list). */
#define COUNTER(name, where) X(name)
#define FIELDS(X_) COH_STATS_COUNTERS(COUNTER)

static const char *am_names[DSM_TP_AM_MAX_ID] = {
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
    [COH_AM_REPORT] = "report",
    [COH_AM_REPORT_NAMES_REQ] = "report_names_req",
    [COH_AM_REPORT_NAMES_REP] = "report_names_rep",
};

/* coherence.h: the layers above name their message kinds at start-up. */
void dsm_coh_report_am_name(int id, const char *name)
{
    if (id > COH_AM_LAST && id < DSM_TP_AM_MAX_ID)
        am_names[id] = name;
}

const char *coh_report_am_name(int id, char buf[16])
{
    if (id >= 0 && id < DSM_TP_AM_MAX_ID && am_names[id])
        return am_names[id];
    snprintf(buf, 16, "am%d", id);
    return buf;
}

/* ---- derived figures ------------------------------------------------------- */

static const coh_msg_report_t *hdr(const coh_report_job_t *job, int n)
{
    return &job->node[n].hdr;
}

static uint64_t moved(const coh_msg_report_t *h)
{
    return h->stats.bytes_sent + h->stats.rma_get_bytes +
           h->stats.rma_put_bytes;
}

static uint64_t faults(const coh_msg_report_t *h)
{
    return h->stats.read_faults + h->stats.write_faults;
}

/* Regions of the job (node 0 starts every one), else its barriers. */
static uint64_t steps(const coh_report_job_t *job, const char **unit)
{
    uint64_t r = hdr(job, 0)->stats.parallel_regions;
    *unit = r ? "parallel region" : "barrier";
    return r ? r : hdr(job, 0)->stats.barriers;
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : 0;
}

double coh_report_protocol_share(const coh_report_job_t *job)
{
    double best = 0;
    for (int n = 0; n < job->size; n++) {
        const coh_msg_report_t *h = hdr(job, n);
        double s = share(h->stats.protocol_ns + h->sync_ns + h->atomic_ns,
                         h->run_ns);
        best = s > best ? s : best;
    }
    return best;
}

/* ---- the table -------------------------------------------------------------- */

#define LABEL 30
#define COLUMN 12

static void row_u64(FILE *f, const char *label, const uint64_t *v, int n,
                    uint64_t total)
{
    fprintf(f, "%-*s", LABEL, label);
    for (int k = 0; k < n; k++)
        fprintf(f, " %*" PRIu64, COLUMN - 1, v[k]);
    fprintf(f, " %*" PRIu64 "\n", COLUMN - 1, total);
}

static void row_f(FILE *f, const char *label, const double *v, int n,
                  double total, int decimals)
{
    fprintf(f, "%-*s", LABEL, label);
    for (int k = 0; k < n; k++)
        fprintf(f, " %*.*f", COLUMN - 1, decimals, v[k]);
    fprintf(f, " %*.*f\n", COLUMN - 1, decimals, total);
}

void coh_report_table_text(FILE *f, const coh_report_job_t *job)
{
    int n = job->size;
    uint64_t v[COH_MAX_NODES], total;
    double d[COH_MAX_NODES];
    const char *unit;
    uint64_t nsteps = steps(job, &unit);
    uint64_t run_max = 0;
    for (int k = 0; k < n; k++)
        run_max = hdr(job, k)->run_ns > run_max ? hdr(job, k)->run_ns : run_max;

    fprintf(f, "dsm statistics: %d node%s x %u thread%s, %.3f s",
            n, n == 1 ? "" : "s", hdr(job, 0)->threads,
            hdr(job, 0)->threads == 1 ? "" : "s", (double)run_max / 1e9);
    if (hdr(job, 0)->stats.parallel_regions)
        fprintf(f, ", %" PRIu64 " parallel region%s",
                hdr(job, 0)->stats.parallel_regions,
                hdr(job, 0)->stats.parallel_regions == 1 ? "" : "s");
    fprintf(f, "\n%-*s", LABEL, "counter");
    for (int k = 0; k < n; k++) {
        char head[24];
        snprintf(head, sizeof head, "node %d", k);
        fprintf(f, " %*s", COLUMN - 1, head);
    }
    fprintf(f, " %*s\n", COLUMN - 1, "total");
#define X(name)                                                               \
    total = 0;                                                                \
    for (int k = 0; k < n; k++)                                               \
        total += v[k] = hdr(job, k)->stats.name;                              \
    row_u64(f, #name, v, n, total);
    FIELDS(X)
#undef X

    char buf[16], label[48];
    for (int id = 0; id < DSM_TP_AM_MAX_ID; id++) {
        uint64_t count = 0, bytes = 0;
        for (int k = 0; k < n; k++) {
            count += hdr(job, k)->am_sent[id];
            bytes += hdr(job, k)->am_bytes[id];
        }
        if (!count)
            continue;
        const char *name = coh_report_am_name(id, buf);
        for (int k = 0; k < n; k++)
            v[k] = hdr(job, k)->am_sent[id];
        snprintf(label, sizeof label, "msg %s", name);
        row_u64(f, label, v, n, count);
        for (int k = 0; k < n; k++)
            v[k] = hdr(job, k)->am_bytes[id];
        snprintf(label, sizeof label, "msg %s bytes", name);
        row_u64(f, label, v, n, bytes);
    }

    uint64_t all_protocol = 0, all_run = 0, all_faults = 0, all_moved = 0,
             all_sync = 0, all_atomic = 0;
    for (int k = 0; k < n; k++) {
        const coh_msg_report_t *h = hdr(job, k);
        d[k] = (double)h->run_ns / 1e9;
        all_protocol += h->stats.protocol_ns;
        all_sync += h->sync_ns;
        all_atomic += h->atomic_ns;
        all_run += h->run_ns;
        all_faults += faults(h);
        all_moved += moved(h);
    }
    row_f(f, "run time (s)", d, n, (double)run_max / 1e9, 3);
    for (int k = 0; k < n; k++)
        d[k] = 100 * share(hdr(job, k)->stats.protocol_ns, hdr(job, k)->run_ns);
    row_f(f, "protocol time (% of run)", d, n,
          100 * share(all_protocol, all_run), 1);
    if (all_sync) {
        for (int k = 0; k < n; k++)
            d[k] = 100 * share(hdr(job, k)->sync_ns, hdr(job, k)->run_ns);
        row_f(f, "flush time (% of run)", d, n, 100 * share(all_sync, all_run),
              1);
    }
    if (all_atomic) {
        for (int k = 0; k < n; k++)
            d[k] = 100 * share(hdr(job, k)->atomic_ns, hdr(job, k)->run_ns);
        row_f(f, "atomic time (% of run)", d, n,
              100 * share(all_atomic, all_run), 1);
    }
    for (int k = 0; k < n; k++)
        d[k] = hdr(job, k)->run_ns
                   ? faults(hdr(job, k)) / ((double)hdr(job, k)->run_ns / 1e9)
                   : 0;
    row_f(f, "faults per second", d, n,
          run_max ? all_faults / ((double)run_max / 1e9) : 0, 0);
    if (nsteps) {
        snprintf(label, sizeof label, "bytes moved per %s", unit);
        for (int k = 0; k < n; k++)
            d[k] = (double)moved(hdr(job, k)) / (double)nsteps;
        row_f(f, label, d, n, (double)all_moved / (double)nsteps, 0);
    }
}

/* ---- JSON ------------------------------------------------------------------- */

static void json_messages(FILE *f, const uint64_t *sent, const uint64_t *bytes)
{
    fprintf(f, "\"messages\": {");
    int first = 1;
    char buf[16];
    for (int id = 0; id < DSM_TP_AM_MAX_ID; id++)
        if (sent[id]) {
            fprintf(f, "%s\"%s\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64
                       "}",
                    first ? "" : ", ", coh_report_am_name(id, buf), sent[id],
                    bytes[id]);
            first = 0;
        }
    fprintf(f, "}");
}

static void json_list(FILE *f, const char *name, const double *v, int n,
                      double total)
{
    fprintf(f, "\"%s\": [", name);
    for (int k = 0; k < n; k++)
        fprintf(f, "%.6g, ", v[k]);
    fprintf(f, "%.6g]", total);
}

void coh_report_table_json(FILE *f, const coh_report_job_t *job)
{
    int n = job->size;
    const char *unit;
    uint64_t nsteps = steps(job, &unit);
    uint64_t run_max = 0;
    for (int k = 0; k < n; k++)
        run_max = hdr(job, k)->run_ns > run_max ? hdr(job, k)->run_ns : run_max;
    fprintf(f, "\"version\": 2, \"size\": %d, \"threads\": %u, "
               "\"run_seconds\": %.6f, \"parallel_regions\": %" PRIu64 ",\n",
            n, hdr(job, 0)->threads, (double)run_max / 1e9,
            hdr(job, 0)->stats.parallel_regions);
    fprintf(f, " \"counters\": [");
    const char *sep = "";
#define X(name) fprintf(f, "%s\"%s\"", sep, #name), sep = ", ";
    FIELDS(X)
#undef X
    fprintf(f, "],\n \"nodes\": [");
    for (int k = 0; k < n; k++) {
        const coh_msg_report_t *h = hdr(job, k);
        fprintf(f, "%s\n  {\"node\": %d, \"run_ns\": %" PRIu64, k ? "," : "",
                k, h->run_ns);
#define X(name) fprintf(f, ", \"%s\": %" PRIu64, #name, (uint64_t)h->stats.name);
        FIELDS(X)
#undef X
        fprintf(f, ", \"flush_ns\": %" PRIu64 ", \"atomic_ns\": %" PRIu64
                   ", ", h->sync_ns, h->atomic_ns);
        json_messages(f, h->am_sent, h->am_bytes);
        fprintf(f, "}");
    }
    fprintf(f, "],\n \"total\": {");
    uint64_t sent[DSM_TP_AM_MAX_ID] = {0}, bytes[DSM_TP_AM_MAX_ID] = {0};
    for (int k = 0; k < n; k++)
        for (int id = 0; id < DSM_TP_AM_MAX_ID; id++) {
            sent[id] += hdr(job, k)->am_sent[id];
            bytes[id] += hdr(job, k)->am_bytes[id];
        }
    uint64_t total;
#define X(name)                                                               \
    total = 0;                                                                \
    for (int k = 0; k < n; k++)                                               \
        total += hdr(job, k)->stats.name;                                     \
    fprintf(f, "\"%s\": %" PRIu64 ", ", #name, total);
    FIELDS(X)
#undef X
    json_messages(f, sent, bytes);
    fprintf(f, "},\n \"derived\": {");
    double d[COH_MAX_NODES];
    uint64_t all_protocol = 0, all_run = 0, all_faults = 0, all_moved = 0;
    for (int k = 0; k < n; k++) {
        const coh_msg_report_t *h = hdr(job, k);
        d[k] = (double)h->run_ns / 1e9;
        all_protocol += h->stats.protocol_ns;
        all_run += h->run_ns;
        all_faults += faults(h);
        all_moved += moved(h);
    }
    json_list(f, "run_seconds", d, n, (double)run_max / 1e9);
    for (int k = 0; k < n; k++)
        d[k] = share(hdr(job, k)->stats.protocol_ns, hdr(job, k)->run_ns);
    fprintf(f, ", ");
    json_list(f, "protocol_share", d, n, share(all_protocol, all_run));
    for (int k = 0; k < n; k++)
        d[k] = hdr(job, k)->run_ns
                   ? faults(hdr(job, k)) / ((double)hdr(job, k)->run_ns / 1e9)
                   : 0;
    fprintf(f, ", ");
    json_list(f, "faults_per_second", d, n,
              run_max ? all_faults / ((double)run_max / 1e9) : 0);
    for (int k = 0; k < n; k++)
        d[k] = nsteps ? (double)moved(hdr(job, k)) / (double)nsteps : 0;
    fprintf(f, ", \"bytes_moved_per\": \"%s\", ", unit);
    json_list(f, "bytes_moved_per_step", d, n,
              nsteps ? (double)all_moved / (double)nsteps : 0);
    fprintf(f, "}");
}
