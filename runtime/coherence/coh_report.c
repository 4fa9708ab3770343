/*
 * coh_report.c - gathering the job's statistics at node 0 at finalize,
 * and where node 0 prints them (see coh_report.h).
 *
 * After the final barrier every node sends node 0 one COH_AM_REPORT: its
 * counters, its message counts by kind, and, when the sharing accounting
 * was on, its costliest page records (at most MAX_SENT, chosen by the
 * cost the node itself measured) and its flush call sites.  Node 0 waits
 * for all of them, analyses and prints.  Heap blocks are named by the
 * node whose arena holds them (the call sites are recorded there): node 0
 * sends each node that kept accounts one names request, empty if it has
 * nothing to ask, and each such node waits for it and answers before it
 * goes on to leave the job.  Nodes on other hosts take part like the
 * others: everything travels over the job's own connections.
 *
 * Layer: coherence.  coh_report_finalize: main thread, collectively, after
 * the final barrier (stdio and malloc allowed).  The handlers run in the
 * progressing thread; they copy what they receive and raise a flag.
 */
#include "coh_report.h"

#include <stdlib.h>
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "base_time.h"
#include "coh_protocol.h"
#include "coh_sharing.h"
#include "transport.h"

#define MAX_SENT 4096u
/* DSM_REPORT=auto prints the sharing report under DSM_STATS=1 when some
 * node spent this share of its run in the protocol (faults, releases,
 * flushes) */
#define AUTO_SHARE 0.05

static uint64_t start_ns;

/* node 0: the reports */
static void *reports[COH_MAX_NODES];
static size_t report_len[COH_MAX_NODES];
static _Atomic int reports_in;
static volatile int reports_done;
/* node 0: the reply to the names request in flight */
static int asked_node = -1;
static uint32_t asked_items;
static void *names_reply;
static size_t names_reply_len;
static volatile int names_reply_ready;
/* the other nodes: the names request */
static void *names_req;
static size_t names_req_len;
static volatile int names_req_ready;

void coh_report_start(void) { start_ns = dsm_now_ns(); }

static coh_report_limits_t limits(void)
{
    return (coh_report_limits_t){(uint32_t)coh.size, coh.npages};
}

static void *copy_of(const void *payload, size_t len)
{
    void *c = malloc(len ? len : 1);
    if (!c)
        dsm_fatal("no memory for the statistics report (%zu bytes)", len);
    memcpy(c, payload, len);
    return c;
}

static void on_report(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    coh_report_limits_t lim = limits();
    coh_report_view_t v;
    if (coh.rank != 0 || src <= 0 || reports[src] ||
        coh_report_decode(payload, len, &lim, &v) != DSM_OK ||
        (int)v.hdr.node != src)
        dsm_fatal("malformed statistics report from node %d (%zu bytes)",
                  src, len);
    reports[src] = copy_of(payload, len);
    report_len[src] = len;
    if (atomic_fetch_add(&reports_in, 1) + 1 == coh.size - 1)
        __atomic_store_n(&reports_done, 1, __ATOMIC_RELEASE);
}

static void on_names_req(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    uint32_t count;
    if (src != 0 || names_req ||
        coh_report_names_req_decode(payload, len, &count) != DSM_OK)
        dsm_fatal("malformed names request from node %d (%zu bytes)", src,
                  len);
    names_req = copy_of(payload, len);
    names_req_len = len;
    __atomic_store_n(&names_req_ready, 1, __ATOMIC_RELEASE);
}

static void on_names_rep(int src, const void *payload, size_t len, void *arg)
{
    (void)arg;
    uint32_t count;
    if (src != asked_node || names_reply ||
        coh_report_names_rep_decode(payload, len, asked_items, &count) !=
            DSM_OK)
        dsm_fatal("malformed names reply from node %d (%zu bytes)", src,
                  len);
    names_reply = copy_of(payload, len);
    names_reply_len = len;
    __atomic_store_n(&names_reply_ready, 1, __ATOMIC_RELEASE);
}

dsm_status_t coh_report_register_handlers(void)
{
    dsm_status_t st;
    if ((st = coh_am_register(COH_AM_REPORT, on_report)) != DSM_OK ||
        (st = coh_am_register(COH_AM_REPORT_NAMES_REQ, on_names_req)) !=
            DSM_OK ||
        (st = coh_am_register(COH_AM_REPORT_NAMES_REP, on_names_rep)) !=
            DSM_OK)
        return st;
    return DSM_OK;
}

/* ---- this node's report ------------------------------------------------------ */

typedef struct ranked {
    double cost;
    const coh_sharing_page_t *rec;
} ranked_t;

static int by_cost(const void *a, const void *b)
{
    double x = ((const ranked_t *)a)->cost, y = ((const ranked_t *)b)->cost;
    return x > y ? -1 : x < y;
}

#define LD(f) atomic_load_explicit(&rec->f, memory_order_relaxed)

static coh_report_page_t plain(const coh_sharing_page_t *rec)
{
    coh_report_page_t p;
    memset(&p, 0, sizeof p);
    p.page = LD(page) - 1;
    p.read_faults = LD(read_faults);
    p.write_faults = LD(write_faults);
    p.fetches = LD(fetches);
    p.diffs = LD(diffs);
    p.atomics = LD(atomics);
    p.atomic_loads = LD(atomic_loads);
    p.migrations = LD(migrations);
    p.diff_bytes = LD(diff_bytes);
    p.fault_ns = LD(fault_ns);
    p.threads_read = LD(threads_read);
    p.threads_wrote = LD(threads_wrote);
    for (int w = 0; w < COH_SHARING_MASK_WORDS; w++) {
        p.touched[w] = LD(touched[w]);
        p.written[w] = LD(written[w]);
    }
    for (int b = 0; b < COH_SHARING_BUCKETS; b++)
        p.timeline[b] = LD(timeline[b]);
    return p;
}

static void *build_report(size_t *len)
{
    coh_msg_report_t h;
    memset(&h, 0, sizeof h);
    h.node = (uint32_t)coh.rank;
    h.run_ns = dsm_now_ns() - start_ns;
    h.threads = (uint32_t)dsm_config()->threads;
    dsm_stats_get(&h.stats);
    dsm_tp_counters_t tp;
    dsm_tp_counters_get(&tp);
    memcpy(h.am_sent, tp.am_sent, sizeof h.am_sent);
    memcpy(h.am_bytes, tp.am_bytes, sizeof h.am_bytes);

    size_t nrec = 0, nsel = 0, nsync = 0;
    ranked_t *sel = NULL;
    const coh_sharing_sync_site_t *sites = NULL;
    if (coh_sharing_on) {
        h.sharing = 1;
        h.steps = coh_sharing_steps();
        h.shift = coh_sharing_shift();
        h.fault_ns = coh_sharing_fault_ns();
        h.untracked = coh_sharing_untracked();
        h.atomic_calls = coh_sharing_atomic_calls();
        h.atomic_ns = coh_sharing_atomic_ns();
        const coh_sharing_page_t *recs = coh_sharing_pages(&nrec);
        sel = malloc((nrec ? nrec : 1) * sizeof *sel);
        if (!sel)
            dsm_fatal("no memory for the statistics report");
        for (size_t i = 0; i < nrec; i++) {
            if (!atomic_load(&recs[i].page))
                continue;
            coh_report_page_t p = plain(&recs[i]);
            sel[nsel].cost = coh_report_page_cost_ns(&p, &h);
            sel[nsel++].rec = &recs[i];
        }
        qsort(sel, nsel, sizeof *sel, by_cost);
        if (nsel > MAX_SENT) {
            for (size_t i = MAX_SENT; i < nsel; i++)
                h.untracked += 1;
            nsel = MAX_SENT;
        }
        size_t n;
        sites = coh_sharing_sync_sites(&n);
        for (size_t i = 0; i < n; i++)
            if (sites[i].count) {
                nsync++;
                h.sync_ns += sites[i].ns;
            }
    }
    h.npages = (uint32_t)nsel;
    h.nsync = (uint32_t)nsync;
    *len = sizeof h + nsel * sizeof(coh_report_page_t) +
           nsync * sizeof(coh_report_sync_t);
    unsigned char *buf = malloc(*len);
    if (!buf)
        dsm_fatal("no memory for the statistics report (%zu bytes)", *len);
    memcpy(buf, &h, sizeof h);
    unsigned char *at = buf + sizeof h;
    for (size_t i = 0; i < nsel; i++, at += sizeof(coh_report_page_t)) {
        coh_report_page_t p = plain(sel[i].rec);
        memcpy(at, &p, sizeof p);
    }
    size_t n = 0;
    if (sites)
        coh_sharing_sync_sites(&n);
    for (size_t i = 0; i < n; i++) {
        if (!sites[i].count)
            continue;
        coh_report_sync_t s = {sites[i].pc, sites[i].inside, sites[i].count,
                               sites[i].ns};
        memcpy(at, &s, sizeof s);
        at += sizeof s;
    }
    free(sel);
    return buf;
}

/* ---- names ------------------------------------------------------------------- */

static int asked[COH_MAX_NODES];

static void *ask_names(int node, const coh_names_item_t *items,
                       uint32_t count, size_t *len)
{
    if (node == 0)
        return coh_report_names_reply(items, count, len);
    if (asked[node])
        return NULL;
    asked[node] = 1;
    coh_msg_names_t hdr = {count, 0};
    asked_node = node;
    asked_items = count;
    names_reply = NULL;
    names_reply_ready = 0;
    dsm_status_t st = dsm_tp_am_sendv(node, COH_AM_REPORT_NAMES_REQ, &hdr,
                                      sizeof hdr, items,
                                      (size_t)count * sizeof *items);
    if (st != DSM_OK)
        dsm_fatal("asking node %d to name its heap blocks: %s", node,
                  dsm_status_string(st));
    dsm_tp_wait_flag(&names_reply_ready, "a node's names of its heap blocks");
    *len = names_reply_len;
    void *reply = names_reply;
    names_reply = NULL;
    asked_node = -1;
    return reply;
}

/* A node other than 0: node 0's names request, answered. */
static void answer_names(void)
{
    dsm_tp_wait_flag(&names_req_ready, "node 0's names request");
    uint32_t count;
    coh_report_names_req_decode(names_req, names_req_len, &count);
    coh_names_item_t *items = malloc((count ? count : 1) * sizeof *items);
    if (!items)
        dsm_fatal("no memory for the statistics report");
    for (uint32_t k = 0; k < count; k++)
        items[k] = coh_report_names_item(names_req, k);
    size_t len;
    void *reply = coh_report_names_reply(items, count, &len);
    dsm_status_t st = dsm_tp_am_send(0, COH_AM_REPORT_NAMES_REP, reply, len);
    if (st != DSM_OK)
        dsm_fatal("sending node 0 the names of heap blocks: %s",
                  dsm_status_string(st));
    free(reply);
    free(items);
    free(names_req);
    names_req = NULL;
}

/* ---- printing ---------------------------------------------------------------- */

/* DSM_STATS_FILE, "%d" (kept for older scripts) becoming 0; NULL: the
 * default stream. */
static FILE *open_output(FILE *dflt, int *close_it)
{
    const dsm_config_t *cfg = dsm_config();
    *close_it = 0;
    if (!cfg->stats_file[0])
        return dflt;
    char name[300];
    const char *mark = strstr(cfg->stats_file, "%d");
    if (mark)
        snprintf(name, sizeof name, "%.*s%d%s",
                 (int)(mark - cfg->stats_file), cfg->stats_file, coh.rank,
                 mark + 2);
    else
        snprintf(name, sizeof name, "%s", cfg->stats_file);
    FILE *f = fopen(name, "w");
    if (!f) {
        dsm_log(DSM_LOG_ERROR, "DSM_STATS_FILE=%s: cannot write it", name);
        return NULL;
    }
    *close_it = 1;
    return f;
}

static void print_job(const coh_report_job_t *job, int sharing)
{
    const dsm_config_t *cfg = dsm_config();
    int text_report = sharing &&
                      (cfg->report == DSM_REPORT_SHARING ||
                       (cfg->report == DSM_REPORT_AUTO &&
                        cfg->stats == DSM_STATS_TEXT &&
                        coh_report_protocol_share(job) >= AUTO_SHARE));
    coh_sharing_report_t *sr = NULL;
    if (sharing && (text_report || cfg->stats == DSM_STATS_JSON))
        sr = coh_report_sharing_analyse(job, ask_names);
    /* nodes not asked anything still wait for their request */
    for (int n = 1; n < job->size; n++)
        if (job->node[n].hdr.sharing && !asked[n]) {
            size_t len;
            free(ask_names(n, NULL, 0, &len));
        }
    int close_it;
    if (cfg->stats == DSM_STATS_JSON) {
        FILE *f = open_output(stdout, &close_it);
        if (f) {
            fprintf(f, "{");
            coh_report_table_json(f, job);
            if (sr) {
                fprintf(f, ",\n \"sharing\": ");
                coh_report_sharing_json(f, sr);
            }
            fprintf(f, "}\n");
            fflush(f);
            if (close_it)
                fclose(f);
        }
        if (sr && cfg->report == DSM_REPORT_SHARING) {
            coh_report_sharing_text(stderr, sr);
            fflush(stderr);
        }
    } else {
        FILE *f = cfg->stats == DSM_STATS_TEXT ? open_output(stderr, &close_it)
                                               : stderr;
        if (cfg->stats != DSM_STATS_TEXT)
            close_it = 0;
        if (f) {
            if (cfg->stats == DSM_STATS_TEXT)
                coh_report_table_text(f, job);
            if (sr && text_report)
                coh_report_sharing_text(f, sr);
            fflush(f);
            if (close_it)
                fclose(f);
        }
    }
    if (sr)
        coh_report_sharing_free(sr);
}

void coh_report_finalize(void)
{
    const dsm_config_t *cfg = dsm_config();
    if (cfg->stats == DSM_STATS_OFF && !coh_sharing_on)
        return;
    size_t len;
    void *mine = build_report(&len);
    if (coh.rank != 0) {
        dsm_status_t st = dsm_tp_am_send(0, COH_AM_REPORT, mine, len);
        if (st != DSM_OK)
            dsm_fatal("sending node 0 this node's statistics: %s",
                      dsm_status_string(st));
        free(mine);
        if (coh_sharing_on)
            answer_names();
        return;
    }
    reports[0] = mine;
    report_len[0] = len;
    if (coh.size > 1)
        dsm_tp_wait_flag(&reports_done, "every node's statistics");
    static coh_report_job_t job;
    job.size = coh.size;
    coh_report_limits_t lim = limits();
    int sharing = 0;
    for (int n = 0; n < coh.size; n++) {
        if (coh_report_decode(reports[n], report_len[n], &lim, &job.node[n]) !=
            DSM_OK)
            dsm_fatal("malformed statistics report of node %d", n);
        sharing |= job.node[n].hdr.sharing != 0;
    }
    print_job(&job, sharing);
    for (int n = 0; n < coh.size; n++) {
        free(reports[n]);
        reports[n] = NULL;
    }
}
