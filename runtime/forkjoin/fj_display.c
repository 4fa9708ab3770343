/*
 * fj_display.c - the text of OMP_DISPLAY_ENV and omp_display_env: the
 * OpenMP version, the ICVs' start-up values as their environment
 * variables, and dsmomp's own settings - the layout (nodes, threads per
 * node) always, the sharable region, timeouts and protocol switches with
 * verbose.  The block is written to stderr with one write, so that it
 * stays whole beside other nodes' output.
 *
 * Layer: forkjoin.  Entry point: fj_display_env.  Any application thread
 * (node 0's main thread at start-up); uses stdio and malloc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

#include "base_config.h"
#include "base_log.h"
#include "fj_internal.h"

static const char *bool_text(int v) { return v ? "TRUE" : "FALSE"; }

/* "16G", "4M", "64K" or bytes. */
static void size_text(char *buf, size_t size, uint64_t v)
{
    static const char units[] = "KMGT";
    int u = -1;
    while (u < 3 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, size, "%lluB", (unsigned long long)v);
    else
        snprintf(buf, size, "%llu%c", (unsigned long long)v, units[u]);
}

static void schedule_text(char *buf, size_t size, int kind, int chunk)
{
    static const char *const names[] = {"?", "static", "dynamic", "guided",
                                        "auto"};
    int base = FJ_SCHED_KIND(kind);
    const char *name = base >= 1 && base <= 4 ? names[base] : "?";
    const char *mod = kind & FJ_SCHED_MONOTONIC ? "monotonic:" : "";
    if (chunk > 0 && base != FJ_SCHED_AUTO)
        snprintf(buf, size, "%s%s,%d", mod, name, chunk);
    else
        snprintf(buf, size, "%s%s", mod, name);
}

static void line(FILE *f, const char *name, const char *value)
{
    fprintf(f, "  [host] %s='%s'\n", name, value);
}

static void line_int(FILE *f, const char *name, long long value)
{
    fprintf(f, "  [host] %s='%lld'\n", name, value);
}

static void print_openmp(FILE *f, const fj_icv_report_t *r)
{
    static const char *const binds[] = {"false", "true", "primary",
                                        "close", "spread"};
    char buf[256];
    fprintf(f, "  _OPENMP='201811'\n");
    line(f, "OMP_AFFINITY_FORMAT", r->affinity_format);
    const char *alloc = fj_icv_allocator_name((uintptr_t)r->allocator);
    line(f, "OMP_ALLOCATOR", alloc ? alloc : "?");
    const char *cancel = getenv("OMP_CANCELLATION");
    line(f, "OMP_CANCELLATION",
         bool_text(cancel && (!strcasecmp(cancel, "true") ||
                              !strcasecmp(cancel, "1"))));
    line_int(f, "OMP_DEFAULT_DEVICE", r->default_device);
    line(f, "OMP_DISPLAY_AFFINITY", "FALSE");
    line(f, "OMP_DISPLAY_ENV", r->display_env == 2 ? "VERBOSE"
                               : bool_text(r->display_env));
    line(f, "OMP_DYNAMIC", bool_text(r->dynamic));
    line_int(f, "OMP_MAX_ACTIVE_LEVELS", r->max_active_levels);
    line_int(f, "OMP_NUM_TEAMS", r->nteams);
    line_int(f, "OMP_NUM_THREADS", r->nthreads);
    /* one place per node: its processors, numbered across the cluster */
    const int *cpus;
    int ncpu = fj_node_cpus(&cpus);
    int nodes = fj.size > 0 ? fj.size : 1;
    fprintf(f, "  [host] OMP_PLACES='");
    for (int p = 0; p < nodes; p++)
        fprintf(f, "%s{%d:%d}", p ? "," : "", p * ncpu, ncpu);
    fprintf(f, "'\n");
    line(f, "OMP_PROC_BIND", r->proc_bind >= 0 && r->proc_bind <= 4
                                 ? binds[r->proc_bind] : "?");
    schedule_text(buf, sizeof buf, r->sched_kind, r->sched_chunk);
    line(f, "OMP_SCHEDULE", buf);
    size_text(buf, sizeof buf, r->stack_size);
    line(f, "OMP_STACKSIZE", buf);
    line_int(f, "OMP_TEAMS_THREAD_LIMIT", r->teams_thread_limit);
    line_int(f, "OMP_THREAD_LIMIT", r->thread_limit);
    line(f, "OMP_WAIT_POLICY", r->spin >= 200000 ? "ACTIVE" : "PASSIVE");
}

static void print_dsmomp(FILE *f, const fj_icv_report_t *r, int verbose)
{
    const dsm_config_t *cfg = dsm_config();
    char buf[64];
    line_int(f, "DSM_SIZE", fj.size > 0 ? fj.size : 1);
    line_int(f, "DSM_THREADS", fj.threads > 0 ? fj.threads : 1);
    if (!verbose || !cfg)
        return;
    line_int(f, "KMP_BLOCKTIME", (long long)r->blocktime_ms);
    snprintf(buf, sizeof buf, "%#llx", (unsigned long long)cfg->region_base);
    line(f, "DSM_REGION_BASE", buf);
    size_text(buf, sizeof buf, cfg->region_size);
    line(f, "DSM_REGION_SIZE", buf);
    size_text(buf, sizeof buf, cfg->stack_size);
    line(f, "DSM_STACK_SIZE", buf);
    line_int(f, "DSM_TIMEOUT", cfg->timeout_ms / 1000);
    line_int(f, "DSM_PROGRESS_THREAD", cfg->progress_thread);
    line_int(f, "DSM_MIGRATE_AFTER", cfg->migrate_after);
    line_int(f, "DSM_SAME_HOST_MAP", cfg->same_host_map);
    line_int(f, "DSM_SAME_HOST_LANES", cfg->same_host_lanes);
    line_int(f, "DSM_LANE_MEMBARRIER", cfg->lane_membarrier);
    line_int(f, "DSM_DIRECT_READ", cfg->direct_read);
    static const char *const errmodes[] = {"auto", "peer", "none"};
    line(f, "DSM_UCX_ERR_MODE", errmodes[cfg->ucx_err_mode]);
    static const char *const stats[] = {"0", "1", "json"};
    line(f, "DSM_STATS", stats[cfg->stats]);
}

void fj_display_env(int verbose)
{
    fj_icv_report_t r;
    fj_icv_initial(&r);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        dsm_fatal("out of memory for omp_display_env");
    fprintf(f, "OPENMP DISPLAY ENVIRONMENT BEGIN\n");
    print_openmp(f, &r);
    print_dsmomp(f, &r, verbose);
    fprintf(f, "OPENMP DISPLAY ENVIRONMENT END\n");
    if (fclose(f) != 0 || !text)
        dsm_fatal("out of memory for omp_display_env");
    for (size_t done = 0; done < len;) {
        ssize_t n = write(STDERR_FILENO, text + done, len - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    free(text);
}
