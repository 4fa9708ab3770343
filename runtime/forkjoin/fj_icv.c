/*
 * fj_icv.c - OpenMP internal control variables: defaults from the OMP_*
 * environment, the per-thread values omp_set_* change, the device-wide
 * ones (teams, default device, binding, allocator, affinity format), the
 * node's waiting settings (wait policy, blocktime, library mode), the
 * node's processors, and omp_pause_resource's state.
 *
 * Layer: forkjoin.  fj_icv_load: start-up (main thread, every node).  The
 * fj_icv_* accessors: any application thread; the data-environment ones
 * read and write the calling thread's data environment, which a region's
 * members inherit from node 0's master (the fork message carries it); the
 * device-wide ones are the node's (serial code runs on node 0).
 *
 * Variables read (doc/usage.md lists them with their defaults):
 *   OMP_NUM_THREADS   first value of the list; default nodes * DSM_THREADS
 *   OMP_SCHEDULE      [monotonic:|nonmonotonic:]kind[,chunk]; default static
 *   OMP_DYNAMIC       true|false; default false (teams are never adjusted)
 *   OMP_THREAD_LIMIT  caps the team size; default nodes * DSM_THREADS
 *   OMP_MAX_ACTIVE_LEVELS  active levels allowed (nested regions beyond run
 *                     serialised); default 1, at most the supported levels
 *   OMP_NESTED        true: as many active levels as supported (unless
 *                     OMP_MAX_ACTIVE_LEVELS says); false: 1
 *   OMP_STACKSIZE     size[B|K|M|G] (K when no unit) of each worker's
 *                     sharable stack; default 8M (libgomp's threads get
 *                     the usual 8 MiB stack limit, and libomp passes it
 *                     on to its workers: programs with a few MiB of
 *                     private arrays per thread run there)
 *   OMP_WAIT_POLICY   active: spin longer before sleeping (and idle nodes
 *                     poll for the next region for 200 ms); passive: sleep
 *                     at once; default: a short spin, and 1 ms of polling
 *   KMP_BLOCKTIME     milliseconds (or "infinite") idle threads poll
 *                     before sleeping; overrides OMP_WAIT_POLICY's
 *   OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT   nteams-var and
 *                     teams-thread-limit-var; default 0 (unset)
 *   OMP_DEFAULT_DEVICE  default-device-var; default 0 (the host)
 *   OMP_PROC_BIND     bind-var (first value of the list); default false
 *   OMP_PLACES        accepted; the places are the nodes
 *   OMP_ALLOCATOR     def-allocator-var: a predefined allocator's name
 *   OMP_AFFINITY_FORMAT  affinity-format-var
 *   OMP_DISPLAY_AFFINITY  true is not supported (a warning)
 *   OMP_DISPLAY_ENV   true|verbose: node 0 prints the ICVs at start-up
 */
#include <ctype.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base_config.h"
#include "base_log.h"
#include "fj_internal.h"

#define DEFAULT_WORKER_STACK ((size_t)8 << 20)
#define SPIN_DEFAULT 1000
#define SPIN_ACTIVE  200000
#define MAIL_POLL_DEFAULT_NS 1000000ull
#define MAIL_POLL_ACTIVE_NS  200000000ull

#define BLOCKTIME_INFINITE_MS 2147483647
/* libomp's default affinity format, with the host: nodes are processes on
 * several hosts */
#define DEFAULT_AFFINITY_FORMAT \
    "OMP: host %H pid %P tid %i thread %n bound to OS proc set {%A}"
#define AFFINITY_FORMAT_MAX 4096

static int thread_limit;

/* Device-wide ICVs (this node's), their start-up values, and the wait
 * settings that kmp_set_blocktime and kmp_set_library change. */
typedef struct fj_device_icv {
    int nteams, teams_thread_limit;
    int default_device;
    int proc_bind;           /* omp_proc_bind_t */
    int allocator;           /* omp_allocator_handle_t, predefined */
    int spin;
    uint64_t mail_poll_ns;
    int library;             /* FJ_LIBRARY_* */
} fj_device_icv_t;

static fj_device_icv_t device_icv, device_icv_initial;
static fj_icv_t data_icv_initial;
static int display_env;      /* OMP_DISPLAY_ENV: 0, 1 true, 2 verbose */

static pthread_mutex_t format_mutex = PTHREAD_MUTEX_INITIALIZER;
static char affinity_format[AFFINITY_FORMAT_MAX] = DEFAULT_AFFINITY_FORMAT;
static char affinity_format_initial[AFFINITY_FORMAT_MAX] =
    DEFAULT_AFFINITY_FORMAT;

/* The node's processors: the CPUs of the process's affinity mask at
 * start-up (a Slurm or cgroup restriction included). */
static int node_cpu[CPU_SETSIZE];
static int node_ncpu;

/* omp_pause_resource: the state it left, and the region it did so in
 * (a later region resumes, as libomp does). */
static int pause_state;
static uint64_t pause_region;

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

/* A blocktime of ms milliseconds: how long idle nodes poll for the next
 * region, and how long waiting threads spin (none for 0, as
 * OMP_WAIT_POLICY=passive; long from 200 ms, as active). */
static void set_blocktime(fj_device_icv_t *d, long ms)
{
    d->mail_poll_ns = (uint64_t)ms * 1000000ull;
    d->spin = ms == 0 ? 0 : ms >= 200 ? SPIN_ACTIVE : SPIN_DEFAULT;
}

static int parse_blocktime(const char *text, fj_device_icv_t *d)
{
    long ms;
    if (!strcasecmp(text, "infinite") || !strcasecmp(text, "infinity"))
        ms = BLOCKTIME_INFINITE_MS;
    else if (dsm_parse_int_range(text, 0, BLOCKTIME_INFINITE_MS, &ms) !=
             DSM_OK) {
        dsm_log(DSM_LOG_ERROR, "KMP_BLOCKTIME=%s: expected milliseconds or "
                "infinite", text);
        return -1;
    }
    set_blocktime(d, ms);
    return 0;
}

static int parse_proc_bind(const char *text, int *out)
{
    static const struct { const char *name; int value; } binds[] = {
        {"false", 0}, {"true", 1}, {"master", 2}, {"primary", 2},
        {"close", 3}, {"spread", 4},
    };
    size_t n = strcspn(text, ",");
    for (size_t i = 0; i < sizeof binds / sizeof *binds; i++)
        if (strlen(binds[i].name) == n &&
            !strncasecmp(text, binds[i].name, n)) {
            *out = binds[i].value;
            return 0;
        }
    dsm_log(DSM_LOG_ERROR, "OMP_PROC_BIND=%s: expected a list of true, "
            "false, primary, master, close or spread", text);
    return -1;
}

/* Names of the predefined allocators, by handle. */
static const char *const allocator_names[] = {
    NULL, "omp_default_mem_alloc", "omp_large_cap_mem_alloc",
    "omp_const_mem_alloc", "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",
    "omp_cgroup_mem_alloc", "omp_pteam_mem_alloc", "omp_thread_mem_alloc",
};
#define ALLOCATOR_LAST 8

const char *fj_icv_allocator_name(uintptr_t allocator)
{
    return allocator >= 1 && allocator <= ALLOCATOR_LAST
               ? allocator_names[allocator]
               : NULL;
}

static int parse_allocator(const char *text, int *out)
{
    for (int i = 1; i <= ALLOCATOR_LAST; i++)
        if (!strcasecmp(text, allocator_names[i])) {
            *out = i;
            return 0;
        }
    dsm_log(DSM_LOG_ERROR, "OMP_ALLOCATOR=%s: expected a predefined "
            "allocator (omp_default_mem_alloc, omp_large_cap_mem_alloc, "
            "omp_const_mem_alloc, omp_high_bw_mem_alloc, "
            "omp_low_lat_mem_alloc, omp_cgroup_mem_alloc, "
            "omp_pteam_mem_alloc or omp_thread_mem_alloc)", text);
    return -1;
}

static int parse_nonnegative(const char *name, const char *text, int *out)
{
    long v;
    if (dsm_parse_int_range(text, 0, INT32_MAX, &v) != DSM_OK) {
        dsm_log(DSM_LOG_ERROR, "%s=%s: expected a number from 0", name, text);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static void load_node_cpus(void)
{
    cpu_set_t set;
    node_ncpu = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                node_cpu[node_ncpu++] = c;
    if (node_ncpu == 0)
        node_cpu[node_ncpu++] = 0;
}

/* The variables of the device-wide ICVs, the wait settings and the
 * display flags. */
static dsm_status_t load_device_icv(void)
{
    const char *s;
    fj_device_icv_t *d = &device_icv;
    d->nteams = d->teams_thread_limit = d->default_device = 0;
    d->proc_bind = 0;
    d->allocator = 1;
    if ((s = getenv("OMP_NUM_TEAMS")) && *s &&
        parse_nonnegative("OMP_NUM_TEAMS", s, &d->nteams))
        return DSM_ERR_INVALID;
    if ((s = getenv("OMP_TEAMS_THREAD_LIMIT")) && *s &&
        parse_nonnegative("OMP_TEAMS_THREAD_LIMIT", s,
                          &d->teams_thread_limit))
        return DSM_ERR_INVALID;
    if ((s = getenv("OMP_DEFAULT_DEVICE")) && *s &&
        parse_nonnegative("OMP_DEFAULT_DEVICE", s, &d->default_device))
        return DSM_ERR_INVALID;
    if ((s = getenv("OMP_PROC_BIND")) && *s &&
        parse_proc_bind(s, &d->proc_bind))
        return DSM_ERR_INVALID;
    if ((s = getenv("OMP_ALLOCATOR")) && *s &&
        parse_allocator(s, &d->allocator))
        return DSM_ERR_INVALID;
    d->spin = fj.spin;
    d->mail_poll_ns = fj.mail_poll_ns;
    d->library = fj.spin == SPIN_ACTIVE ? FJ_LIBRARY_TURNAROUND
                                        : FJ_LIBRARY_THROUGHPUT;
    if ((s = getenv("KMP_BLOCKTIME")) && *s && parse_blocktime(s, d))
        return DSM_ERR_INVALID;
    fj.spin = d->spin;
    fj.mail_poll_ns = d->mail_poll_ns;
    if ((s = getenv("OMP_AFFINITY_FORMAT")) && *s) {
        if (strlen(s) >= AFFINITY_FORMAT_MAX) {
            dsm_log(DSM_LOG_ERROR, "OMP_AFFINITY_FORMAT: longer than %d "
                    "characters", AFFINITY_FORMAT_MAX - 1);
            return DSM_ERR_INVALID;
        }
        strcpy(affinity_format, s);
        strcpy(affinity_format_initial, s);
    }
    int flag = 0;
    if ((s = getenv("OMP_DISPLAY_AFFINITY")) && *s) {
        if (parse_bool("OMP_DISPLAY_AFFINITY", s, &flag))
            return DSM_ERR_INVALID;
        if (flag && fj.rank == 0)
            dsm_log(DSM_LOG_WARN, "OMP_DISPLAY_AFFINITY=true is not "
                    "supported: threads do not print their affinity at "
                    "each region (call omp_display_affinity)");
    }
    display_env = 0;
    if ((s = getenv("OMP_DISPLAY_ENV")) && *s) {
        if (!strcasecmp(s, "verbose"))
            display_env = 2;
        else if (parse_bool("OMP_DISPLAY_ENV", s, &display_env))
            return DSM_ERR_INVALID;
    }
    device_icv_initial = *d;
    return DSM_OK;
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
    int nested = -1;
    if ((s = getenv("OMP_NESTED")) && *s &&
        parse_bool("OMP_NESTED", s, &nested))
        return DSM_ERR_INVALID;
    fj.icv_default.max_active_levels =
        nested == 1 ? fj_supported_active_levels() : 1;
    if ((s = getenv("OMP_MAX_ACTIVE_LEVELS")) && *s) {
        if (dsm_parse_int_range(s, 0, INT32_MAX, &v) != DSM_OK) {
            dsm_log(DSM_LOG_ERROR, "OMP_MAX_ACTIVE_LEVELS=%s: expected a "
                    "number", s);
            return DSM_ERR_INVALID;
        }
        /* OMP_NESTED=false overrides it, as in libomp */
        if (nested != 0)
            fj.icv_default.max_active_levels =
                v < fj_supported_active_levels() ? (int)v
                                                 : fj_supported_active_levels();
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
    if (load_device_icv() != DSM_OK)
        return DSM_ERR_INVALID;
    data_icv_initial = fj.icv_default;
    load_node_cpus();
    if (display_env && fj.rank == 0)
        fj_display_env(display_env == 2);
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

int fj_icv_max_active_levels(void)
{
    return fj_self()->icv.max_active_levels;
}

void fj_icv_set_max_active_levels(int levels)
{
    int most = fj_supported_active_levels();
    if (levels >= 0)
        fj_self()->icv.max_active_levels = levels < most ? levels : most;
}

/* omp_set_nested: true allows every supported level unless more than one
 * already was, false allows one (as libomp does). */
void fj_icv_set_nested(int nested)
{
    fj_thread_t *self = fj_self();
    if (!nested)
        self->icv.max_active_levels = 1;
    else if (self->icv.max_active_levels < 2)
        self->icv.max_active_levels = fj_supported_active_levels();
}

int fj_icv_thread_limit(void) { return thread_limit > 0 ? thread_limit : 1; }

int fj_icv_limit_threads(int limit)
{
    int saved = thread_limit;
    if (limit > 0 && limit < thread_limit)
        thread_limit = limit;
    return saved;
}

void fj_icv_restore_thread_limit(int saved) { thread_limit = saved; }

/* ---- device-wide ICVs ---------------------------------------------------- */

int fj_icv_num_teams(void) { return device_icv.nteams; }

void fj_icv_set_num_teams(int nteams)
{
    if (nteams > 0)
        device_icv.nteams = nteams;
}

int fj_icv_teams_thread_limit(void) { return device_icv.teams_thread_limit; }

void fj_icv_set_teams_thread_limit(int limit)
{
    if (limit > 0)
        device_icv.teams_thread_limit = limit;
}

int fj_icv_default_device(void) { return device_icv.default_device; }

void fj_icv_set_default_device(int device)
{
    device_icv.default_device = device;
}

int fj_icv_proc_bind(void) { return device_icv.proc_bind; }

uintptr_t fj_icv_default_allocator(void)
{
    /* omp_default_mem_alloc before start-up */
    return device_icv.allocator ? (uintptr_t)device_icv.allocator : 1;
}

size_t fj_icv_affinity_format(char *buf, size_t size)
{
    pthread_mutex_lock(&format_mutex);
    size_t len = strlen(affinity_format);
    if (buf && size) {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy(buf, affinity_format, n);
        buf[n] = '\0';
    }
    pthread_mutex_unlock(&format_mutex);
    return len;
}

void fj_icv_set_affinity_format(const char *format)
{
    if (!format)
        return;
    if (strlen(format) >= AFFINITY_FORMAT_MAX)
        dsm_fatal("omp_set_affinity_format: a format of %zu characters; "
                  "dsmomp keeps at most %d", strlen(format),
                  AFFINITY_FORMAT_MAX - 1);
    pthread_mutex_lock(&format_mutex);
    strcpy(affinity_format, format);
    pthread_mutex_unlock(&format_mutex);
}

/* ---- the node's waiting and processors ---------------------------------- */

size_t fj_icv_stack_size(void) { return fj.worker_stack; }

int fj_icv_blocktime(void)
{
    uint64_t ms = device_icv.mail_poll_ns / 1000000ull;
    return ms > BLOCKTIME_INFINITE_MS ? BLOCKTIME_INFINITE_MS : (int)ms;
}

static void apply_wait(void)
{
    __atomic_store_n(&fj.spin, device_icv.spin, __ATOMIC_RELAXED);
    __atomic_store_n(&fj.mail_poll_ns, device_icv.mail_poll_ns,
                     __ATOMIC_RELAXED);
}

void fj_icv_set_blocktime(int ms)
{
    set_blocktime(&device_icv, ms < 0 ? 0 : ms);
    apply_wait();
}

int fj_icv_library(void) { return device_icv.library; }

void fj_icv_set_library(int library)
{
    switch (library) {
    case FJ_LIBRARY_SERIAL:
        fj_self()->icv.nthreads = 1;
        break;
    case FJ_LIBRARY_TURNAROUND:
        fj_self()->icv.nthreads = fj.icv_default.nthreads;
        device_icv.spin = SPIN_ACTIVE;
        device_icv.mail_poll_ns = MAIL_POLL_ACTIVE_NS;
        break;
    case FJ_LIBRARY_THROUGHPUT:
        fj_self()->icv.nthreads = fj.icv_default.nthreads;
        device_icv.spin = device_icv_initial.spin == SPIN_ACTIVE
                              ? SPIN_DEFAULT
                              : device_icv_initial.spin;
        device_icv.mail_poll_ns =
            device_icv_initial.mail_poll_ns == MAIL_POLL_ACTIVE_NS
                ? MAIL_POLL_DEFAULT_NS
                : device_icv_initial.mail_poll_ns;
        break;
    default:
        dsm_fatal("kmp_set_library: %d is not a library mode (1 serial, 2 "
                  "turnaround, 3 throughput)", library);
    }
    device_icv.library = library;
    apply_wait();
}

int fj_node_cpus(const int **cpus)
{
    if (node_ncpu == 0)
        load_node_cpus();     /* before start-up */
    *cpus = node_cpu;
    return node_ncpu;
}

/* ---- omp_pause_resource --------------------------------------------------- */

int fj_pause(int kind)
{
    if (pause_state && fj.region != pause_region)
        pause_state = 0;       /* a region ran since: resumed */
    if (kind == FJ_PAUSE_RESUME) {
        if (!pause_state)
            return 1;
        pause_state = 0;
        return 0;
    }
    if ((kind != FJ_PAUSE_SOFT && kind != FJ_PAUSE_HARD) || pause_state ||
        fj_active_level() > 0)
        return 1;
    if (kind == FJ_PAUSE_HARD) {
        /* the ICVs start again from the environment's values */
        fj_self()->icv = data_icv_initial;
        device_icv = device_icv_initial;
        apply_wait();
        fj_icv_set_affinity_format(affinity_format_initial);
    }
    pause_state = kind;
    pause_region = fj.region;
    return 0;
}

/* ---- what omp_display_env shows -------------------------------------------- */

void fj_icv_initial(fj_icv_report_t *out)
{
    out->nthreads = data_icv_initial.nthreads;
    out->dynamic = data_icv_initial.dynamic;
    out->sched_kind = data_icv_initial.sched.kind;
    out->sched_chunk = data_icv_initial.sched.chunk;
    out->thread_limit = thread_limit > 0 ? thread_limit : 1;
    out->max_active_levels = data_icv_initial.max_active_levels;
    out->stack_size = fj.worker_stack;
    out->nteams = device_icv_initial.nteams;
    out->teams_thread_limit = device_icv_initial.teams_thread_limit;
    out->default_device = device_icv_initial.default_device;
    out->proc_bind = device_icv_initial.proc_bind;
    out->allocator = device_icv_initial.allocator;
    out->spin = device_icv_initial.spin;
    out->blocktime_ms = device_icv_initial.mail_poll_ns / 1000000ull;
    out->affinity_format = affinity_format_initial;
    out->display_env = display_env;
}
