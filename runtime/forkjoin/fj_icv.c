/*
 * fj_icv.c - OpenMP internal control variables: defaults from the OMP_*
 * environment, and the per-thread values omp_set_* change.
 *
 * Layer: forkjoin.  fj_icv_load: start-up (main thread, every node).  The
 * fj_icv_* accessors: any application thread; they read and write the
 * calling thread's data environment, which a region's members inherit from
 * node 0's master (the fork message carries it).
 *
 * Variables read (doc/usage.md lists them with their defaults):
 *   OMP_NUM_THREADS   first value of the list; default nodes * DSM_THREADS
 *   OMP_SCHEDULE      [monotonic:|nonmonotonic:]kind[,chunk]; default static
 *   OMP_DYNAMIC       true|false; default false (teams are never adjusted)
 *   OMP_THREAD_LIMIT  caps the team size; default nodes * DSM_THREADS
 *   OMP_MAX_ACTIVE_LEVELS  accepted; nested regions always run serialised
 *   OMP_STACKSIZE     size[B|K|M|G] (K when no unit) of each worker's
 *                     sharable stack; default 4M
 *   OMP_WAIT_POLICY   active: spin longer before sleeping (and idle nodes
 *                     poll for the next region for 200 ms); passive: sleep
 *                     at once; default: a short spin, and 1 ms of polling
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base_config.h"
#include "base_log.h"
#include "fj_internal.h"

#define DEFAULT_WORKER_STACK ((size_t)4 << 20)
#define SPIN_DEFAULT 1000
#define SPIN_ACTIVE  200000
#define MAIL_POLL_DEFAULT_NS 1000000ull
#define MAIL_POLL_ACTIVE_NS  200000000ull

static int thread_limit;

static int parse_positive(const char *name, const char *text, long max,
                          long *out)
{
    char first[32];
    size_t n = strcspn(text, ",");
    if (n == 0 || n >= sizeof first) {
        dsm_log(DSM_LOG_ERROR, "%s=%s: expected a positive number", name,
                text);
        return -1;
    }
    memcpy(first, text, n);
    first[n] = '\0';
    if (dsm_parse_int_range(first, 1, max, out) != DSM_OK) {
        dsm_log(DSM_LOG_ERROR, "%s=%s: expected a number from 1 to %ld",
                name, text, max);
        return -1;
    }
    return 0;
}

static int parse_bool(const char *name, const char *text, int *out)
{
    if (!strcasecmp(text, "true") || !strcmp(text, "1"))
        *out = 1;
    else if (!strcasecmp(text, "false") || !strcmp(text, "0"))
        *out = 0;
    else {
        dsm_log(DSM_LOG_ERROR, "%s=%s: expected true or false", name, text);
        return -1;
    }
    return 0;
}

/* run-sched-var as omp_get_schedule reports it, libomp's way: static
 * keeps chunk 0 (balanced blocks) when none is given; dynamic and guided
 * default to chunks of 1 iteration; auto has no chunk and reports 1. */
static fj_sched_t sched_value(int kind, int chunk)
{
    int base = FJ_SCHED_KIND(kind);
    if (base == FJ_SCHED_AUTO || (base != FJ_SCHED_STATIC && chunk < 1))
        chunk = 1;
    else if (chunk < 1)
        chunk = 0;
    return (fj_sched_t){kind, chunk};
}

static int parse_schedule(const char *text, fj_sched_t *out)
{
    const char *all = text;
    int modifier = 0;
    const char *colon = strchr(text, ':');
    if (colon) {
        size_t n = (size_t)(colon - text);
        if (n == 9 && !strncasecmp(text, "monotonic", 9))
            modifier = FJ_SCHED_MONOTONIC;
        else if (!(n == 12 && !strncasecmp(text, "nonmonotonic", 12)))
            goto bad;
        text = colon + 1;
    }
    static const struct { const char *name; int kind; } kinds[] = {
        {"static", FJ_SCHED_STATIC}, {"dynamic", FJ_SCHED_DYNAMIC},
        {"guided", FJ_SCHED_GUIDED}, {"auto", FJ_SCHED_AUTO},
    };
    size_t n = strcspn(text, ",");
    int kind = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strlen(kinds[i].name) == n && !strncasecmp(text, kinds[i].name, n))
            kind = kinds[i].kind;
    if (!kind)
        goto bad;
    long chunk = 0;
    if (text[n] == ',' &&
        dsm_parse_int_range(text + n + 1, 1, INT32_MAX, &chunk) != DSM_OK)
        goto bad;
    *out = sched_value(kind | modifier, (int)chunk);
    return 0;
bad:
    dsm_log(DSM_LOG_ERROR, "OMP_SCHEDULE=%s: expected [monotonic:|"
            "nonmonotonic:]static|dynamic|guided|auto[,chunk]", all);
    return -1;
}

static int parse_stacksize(const char *text, size_t *out)
{
    char buf[64];
    size_t n = strlen(text);
    if (n == 0 || n >= sizeof buf - 1)
        goto bad;
    memcpy(buf, text, n + 1);
    while (n > 0 && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';
    if (n > 0 && (buf[n - 1] == 'b' || buf[n - 1] == 'B'))
        buf[--n] = '\0';
    else if (n > 0 && isdigit((unsigned char)buf[n - 1]))
        strcat(buf, "K");        /* OpenMP: kilobytes when no unit */
    uint64_t v;
    if (dsm_parse_size(buf, &v) != DSM_OK || v < 65536)
        goto bad;
    *out = (size_t)v;
    return 0;
bad:
    dsm_log(DSM_LOG_ERROR, "OMP_STACKSIZE=%s: expected a size of at least "
            "64K, as N[B|K|M|G]", text);
    return -1;
}

dsm_status_t fj_icv_load(int total_threads)
{
    const char *s;
    long v;
    thread_limit = total_threads;
    if ((s = getenv("OMP_THREAD_LIMIT")) && *s) {
        if (parse_positive("OMP_THREAD_LIMIT", s, INT32_MAX, &v))
            return DSM_ERR_INVALID;
        if (v < thread_limit)
            thread_limit = (int)v;
    }
    fj.icv_default.nthreads = thread_limit;
    if ((s = getenv("OMP_NUM_THREADS")) && *s) {
        if (parse_positive("OMP_NUM_THREADS", s, INT32_MAX, &v))
            return DSM_ERR_INVALID;
        fj.icv_default.nthreads = v < thread_limit ? (int)v : thread_limit;
    }
    fj.icv_default.dynamic = 0;
    if ((s = getenv("OMP_DYNAMIC")) && *s &&
        parse_bool("OMP_DYNAMIC", s, &fj.icv_default.dynamic))
        return DSM_ERR_INVALID;
    fj.icv_default.sched = sched_value(FJ_SCHED_STATIC, 0);
    if ((s = getenv("OMP_SCHEDULE")) && *s &&
        parse_schedule(s, &fj.icv_default.sched))
        return DSM_ERR_INVALID;
    fj.max_active_levels = 1;
    if ((s = getenv("OMP_MAX_ACTIVE_LEVELS")) && *s) {
        if (dsm_parse_int_range(s, 0, INT32_MAX, &v) != DSM_OK) {
            dsm_log(DSM_LOG_ERROR, "OMP_MAX_ACTIVE_LEVELS=%s: expected a "
                    "number", s);
            return DSM_ERR_INVALID;
        }
        fj.max_active_levels = v < 1 ? (int)v : 1;
    }
    fj.worker_stack = DEFAULT_WORKER_STACK;
    if ((s = getenv("OMP_STACKSIZE")) && *s &&
        parse_stacksize(s, &fj.worker_stack))
        return DSM_ERR_INVALID;
    fj.spin = SPIN_DEFAULT;
    fj.mail_poll_ns = MAIL_POLL_DEFAULT_NS;
    if ((s = getenv("OMP_WAIT_POLICY")) && *s) {
        if (!strcasecmp(s, "active")) {
            fj.spin = SPIN_ACTIVE;
            fj.mail_poll_ns = MAIL_POLL_ACTIVE_NS;
        } else if (!strcasecmp(s, "passive")) {
            fj.spin = 0;
            fj.mail_poll_ns = 0;
        } else {
            dsm_log(DSM_LOG_ERROR, "OMP_WAIT_POLICY=%s: expected active or "
                    "passive", s);
            return DSM_ERR_INVALID;
        }
    }
    return DSM_OK;
}

int fj_icv_nthreads(void) { return fj_self()->icv.nthreads; }

void fj_icv_set_nthreads(int nthreads)
{
    if (nthreads < 1)
        return;
    int cap = thread_limit > 0 ? thread_limit : 1;
    fj_self()->icv.nthreads = nthreads < cap ? nthreads : cap;
}

int fj_icv_dynamic(void) { return fj_self()->icv.dynamic; }
void fj_icv_set_dynamic(int dynamic) { fj_self()->icv.dynamic = !!dynamic; }

void fj_icv_schedule(int *kind, int *chunk)
{
    fj_sched_t s = fj_self()->icv.sched;
    *kind = s.kind;
    *chunk = s.chunk;
}

void fj_icv_set_schedule(int kind, int chunk)
{
    int base = FJ_SCHED_KIND(kind);
    if (base < FJ_SCHED_STATIC || base > FJ_SCHED_AUTO)
        dsm_fatal("omp_set_schedule: %#x is not a schedule kind (expected "
                  "omp_sched_static, _dynamic, _guided or _auto, possibly "
                  "| omp_sched_monotonic)", (unsigned)kind);
    fj_self()->icv.sched = sched_value(kind, chunk);
}

int fj_icv_max_active_levels(void) { return fj.max_active_levels; }

void fj_icv_set_max_active_levels(int levels)
{
    /* more than one active level is never granted: nested regions run
     * serialised */
    if (levels >= 0)
        fj.max_active_levels = levels < 1 ? levels : 1;
}

int fj_icv_thread_limit(void) { return thread_limit > 0 ? thread_limit : 1; }
