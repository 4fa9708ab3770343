/*
 * shim_places.c - places, thread affinity and the affinity format:
 * omp_get_proc_bind, omp_get_num_places and the other place queries,
 * omp_{set,get}_affinity_format, omp_display_affinity,
 * omp_capture_affinity (omp.h renames the last four ompc_*; both names
 * are exported), and Intel's kmp_*_affinity mask routines.
 *
 * Places are the nodes: place k holds node k's processors.  A thread of
 * node k can only ever run on node k's processors, so that is the binding
 * every thread has, and the unit a cluster program cares about (where a
 * thread runs decides which pages are local); the operating system
 * schedules the thread among its node's processors (threads are not bound
 * to one CPU).  Processors are numbered across the cluster: node k's i-th
 * processor (the i-th CPU of its process's affinity mask at start-up) is
 * k * P + i for P processors per node, nodes assumed alike (as in
 * omp_get_num_procs).  The kmp_* masks use the same numbers; setting a
 * mask binds the calling thread to those of its own node's processors.
 *
 * Layer: compiler-shim.  Any application thread.
 */
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
#include "shim_kmp.h"

/* omp.h renames these to ompc_*; both names are defined below. */
#undef omp_set_affinity_format
#undef omp_get_affinity_format
#undef omp_display_affinity
#undef omp_capture_affinity

static int node_count(void) { return fj_started() ? dsm_num_nodes() : 1; }
static int node_id(void) { return fj_started() ? dsm_node_id() : 0; }

static int procs_per_node(void)
{
    const int *cpus;
    return fj_node_cpus(&cpus);
}

/* ---- places ----------------------------------------------------------- */

SHIM_EXPORT omp_proc_bind_t omp_get_proc_bind(void)
{
    return (omp_proc_bind_t)fj_icv_proc_bind();
}

SHIM_EXPORT int omp_get_num_places(void) { return node_count(); }

SHIM_EXPORT int omp_get_place_num_procs(int place)
{
    return place >= 0 && place < node_count() ? procs_per_node() : 0;
}

SHIM_EXPORT void omp_get_place_proc_ids(int place, int *ids)
{
    if (!ids || place < 0 || place >= node_count())
        return;
    int per = procs_per_node();
    for (int i = 0; i < per; i++)
        ids[i] = place * per + i;
}

SHIM_EXPORT int omp_get_place_num(void) { return node_id(); }

/* The place partition of every implicit task is the whole list (threads
 * are not bound by proc_bind: they stay on their node). */
SHIM_EXPORT int omp_get_partition_num_places(void) { return node_count(); }

SHIM_EXPORT void omp_get_partition_place_nums(int *places)
{
    if (!places)
        return;
    for (int p = 0; p < node_count(); p++)
        places[p] = p;
}

/* ---- the calling thread's processors, numbered across the cluster ------ */

/* Global numbers of the calling thread's allowed CPUs; returns how many
 * (at most max). */
static int thread_procs(int *out, int max)
{
    const int *cpus;
    int per = fj_node_cpus(&cpus), base = node_id() * per, n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int i = 0; i < per && n < max; i++)
        if (CPU_ISSET(cpus[i], &set))
            out[n++] = base + i;
    return n;
}

/* ---- affinity format ------------------------------------------------------ */

/* A growing string. */
typedef struct text {
    char *buf;
    size_t len, cap;
} text_t;

static void text_put(text_t *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 128;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b)
            dsm_fatal("out of memory for omp_capture_affinity");
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void text_puts(text_t *t, const char *s) { text_put(t, s, strlen(s)); }

/* Processor numbers as "0-3,8": runs of three or more as ranges. */
static void procs_text(text_t *t)
{
    int procs[CPU_SETSIZE];
    int n = thread_procs(procs, CPU_SETSIZE);
    char num[48];
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && procs[j + 1] == procs[j] + 1)
            j++;
        if (j - i >= 2)
            snprintf(num, sizeof num, "%s%d-%d", i ? "," : "", procs[i],
                     procs[j]);
        else
            snprintf(num, sizeof num, "%s%d", i ? "," : "", procs[i]);
        text_puts(t, num);
        i = j - i >= 2 ? j + 1 : i + 1;
    }
}

/* The value of one field, by its short name; 0 for an unknown field. */
static int field_value(char type, text_t *value)
{
    char num[64];
    int level = omp_get_level();
    switch (type) {
    case 't': snprintf(num, sizeof num, "%d", omp_get_team_num()); break;
    case 'T': snprintf(num, sizeof num, "%d", omp_get_num_teams()); break;
    case 'L': snprintf(num, sizeof num, "%d", level); break;
    case 'n': snprintf(num, sizeof num, "%d", omp_get_thread_num()); break;
    case 'N': snprintf(num, sizeof num, "%d", omp_get_num_threads()); break;
    case 'a':
        snprintf(num, sizeof num, "%d", omp_get_ancestor_thread_num(level - 1));
        break;
    case 'P': snprintf(num, sizeof num, "%d", (int)getpid()); break;
    case 'i': snprintf(num, sizeof num, "%ld", (long)syscall(SYS_gettid)); break;
    case 'H':
        if (gethostname(num, sizeof num) != 0)
            snprintf(num, sizeof num, "unknown");
        num[sizeof num - 1] = '\0';
        break;
    case 'A':
        procs_text(value);
        return 1;
    default:
        return 0;
    }
    text_puts(value, num);
    return 1;
}

static char long_field(const char *name, size_t n)
{
    static const struct { const char *name; char type; } names[] = {
        {"team_num", 't'}, {"num_teams", 'T'}, {"nesting_level", 'L'},
        {"thread_num", 'n'}, {"num_threads", 'N'}, {"ancestor_tnum", 'a'},
        {"host", 'H'}, {"process_id", 'P'}, {"native_thread_id", 'i'},
        {"thread_affinity", 'A'},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i].name) == n && !strncmp(names[i].name, name, n))
            return names[i].type;
    return 0;
}

/* Expand an affinity format for the calling thread:
 * %[[[0].]size]type or %[[[0].]size]{name}; without "." a field is
 * left-justified (padded with spaces to size), with "." right-justified,
 * with "0." padded with zeros.  An unknown field gives "undefined". */
static void expand(const char *format, text_t *out)
{
    for (const char *p = format; *p;) {
        if (*p != '%') {
            size_t n = strcspn(p, "%");
            text_put(out, p, n);
            p += n;
            continue;
        }
        p++;
        if (*p == '%') {
            text_put(out, "%", 1);
            p++;
            continue;
        }
        int right = 0, zeros = 0;
        if (p[0] == '0' && p[1] == '.') {
            right = zeros = 1;
            p += 2;
        } else if (p[0] == '.') {
            right = 1;
            p++;
        }
        size_t width = 0;
        while (*p >= '0' && *p <= '9')
            width = width * 10 + (size_t)(*p++ - '0');
        char type = 0;
        if (*p == '{') {
            const char *end = strchr(p, '}');
            if (end) {
                type = long_field(p + 1, (size_t)(end - p - 1));
                p = end + 1;
            } else {
                p += strlen(p);
            }
        } else if (*p) {
            type = *p++;
        }
        text_t value = {0};
        if (!type || !field_value(type, &value)) {
            free(value.buf);
            text_puts(out, "undefined");
            continue;
        }
        size_t pad = width > value.len ? width - value.len : 0;
        if (!right)
            text_put(out, value.buf, value.len);
        for (size_t i = 0; i < pad; i++)
            text_put(out, zeros ? "0" : " ", 1);
        if (right)
            text_put(out, value.buf, value.len);
        free(value.buf);
    }
    if (!out->buf)
        text_put(out, "", 0);
}

/* The format to use: the given one, or affinity-format-var for NULL or
 * an empty string. */
static void expand_or_icv(const char *format, text_t *out)
{
    if (format && *format) {
        expand(format, out);
        return;
    }
    size_t len = fj_icv_affinity_format(NULL, 0);
    char *icv = malloc(len + 1);
    if (!icv)
        dsm_fatal("out of memory for the affinity format");
    fj_icv_affinity_format(icv, len + 1);
    expand(icv, out);
    free(icv);
}

SHIM_EXPORT void ompc_set_affinity_format(const char *format);
SHIM_EXPORT size_t ompc_get_affinity_format(char *buffer, size_t size);
SHIM_EXPORT void ompc_display_affinity(const char *format);
SHIM_EXPORT size_t ompc_capture_affinity(char *buffer, size_t size,
                                         const char *format);

void ompc_set_affinity_format(const char *format)
{
    fj_icv_set_affinity_format(format);
}

size_t ompc_get_affinity_format(char *buffer, size_t size)
{
    return fj_icv_affinity_format(buffer, size);
}

void ompc_display_affinity(const char *format)
{
    text_t t = {0};
    expand_or_icv(format, &t);
    text_put(&t, "\n", 1);
    flockfile(stdout);
    fputs(t.buf, stdout);
    fflush(stdout);
    funlockfile(stdout);
    free(t.buf);
}

size_t ompc_capture_affinity(char *buffer, size_t size, const char *format)
{
    text_t t = {0};
    expand_or_icv(format, &t);
    if (buffer && size) {
        size_t n = t.len < size - 1 ? t.len : size - 1;
        memcpy(buffer, t.buf, n);
        buffer[n] = '\0';
    }
    size_t len = t.len;
    free(t.buf);
    return len;
}

/* The names without omp.h's renaming, for programs that declare them. */
SHIM_EXPORT void omp_set_affinity_format(const char *format)
    __attribute__((alias("ompc_set_affinity_format")));
SHIM_EXPORT size_t omp_get_affinity_format(char *buffer, size_t size)
    __attribute__((alias("ompc_get_affinity_format")));
SHIM_EXPORT void omp_display_affinity(const char *format)
    __attribute__((alias("ompc_display_affinity")));
SHIM_EXPORT size_t omp_capture_affinity(char *buffer, size_t size,
                                        const char *format)
    __attribute__((alias("ompc_capture_affinity")));

/* ---- Intel's affinity masks ------------------------------------------- */

#define MASK_MAGIC 0x6d61736bu       /* "mask" */

typedef struct proc_mask {
    uint32_t magic;
    int nprocs;              /* procs the mask can hold */
    uint64_t bits[];
} proc_mask_t;

static int max_proc(void) { return procs_per_node() * node_count(); }

/* Masks live in the sharable heap once the runtime is up, so that a mask
 * made in serial code is valid in a region on any node. */
static void *mask_alloc(size_t size)
{
    return fj_heap_open() ? dsm_calloc(1, size) : calloc(1, size);
}

static void mask_free(void *p)
{
    if (dsm_is_sharable(p))
        dsm_free(p);
    else
        free(p);
}

static proc_mask_t *mask_of(kmp_affinity_mask_t *mask, const char *routine)
{
    proc_mask_t *m = mask ? *mask : NULL;
    if (!m || m->magic != MASK_MAGIC)
        dsm_fatal("%s: the mask was not made by kmp_create_affinity_mask",
                  routine);
    return m;
}

SHIM_EXPORT int kmp_get_affinity_max_proc(void) { return max_proc(); }

SHIM_EXPORT void kmp_create_affinity_mask(kmp_affinity_mask_t *mask)
{
    int n = max_proc();
    proc_mask_t *m = mask_alloc(sizeof *m + (size_t)(n + 63) / 64 * 8);
    if (!m)
        dsm_fatal("kmp_create_affinity_mask: out of memory");
    m->magic = MASK_MAGIC;
    m->nprocs = n;
    *mask = m;
}

SHIM_EXPORT void kmp_destroy_affinity_mask(kmp_affinity_mask_t *mask)
{
    proc_mask_t *m = mask_of(mask, "kmp_destroy_affinity_mask");
    m->magic = 0;
    mask_free(m);
    *mask = NULL;
}

SHIM_EXPORT int kmp_set_affinity_mask_proc(int proc, kmp_affinity_mask_t *mask)
{
    proc_mask_t *m = mask_of(mask, "kmp_set_affinity_mask_proc");
    if (proc < 0 || proc >= m->nprocs)
        return -1;
    m->bits[proc / 64] |= 1ull << (proc % 64);
    return 0;
}

SHIM_EXPORT int kmp_unset_affinity_mask_proc(int proc,
                                             kmp_affinity_mask_t *mask)
{
    proc_mask_t *m = mask_of(mask, "kmp_unset_affinity_mask_proc");
    if (proc < 0 || proc >= m->nprocs)
        return -1;
    m->bits[proc / 64] &= ~(1ull << (proc % 64));
    return 0;
}

SHIM_EXPORT int kmp_get_affinity_mask_proc(int proc,
                                           kmp_affinity_mask_t *mask)
{
    proc_mask_t *m = mask_of(mask, "kmp_get_affinity_mask_proc");
    if (proc < 0 || proc >= m->nprocs)
        return -1;
    return (int)(m->bits[proc / 64] >> (proc % 64) & 1);
}

/* The calling thread's processors into the mask. */
SHIM_EXPORT int kmp_get_affinity(kmp_affinity_mask_t *mask)
{
    proc_mask_t *m = mask_of(mask, "kmp_get_affinity");
    int procs[CPU_SETSIZE];
    int n = thread_procs(procs, CPU_SETSIZE);
    memset(m->bits, 0, (size_t)(m->nprocs + 63) / 64 * 8);
    for (int i = 0; i < n; i++)
        if (procs[i] < m->nprocs)
            m->bits[procs[i] / 64] |= 1ull << (procs[i] % 64);
    return n > 0 ? 0 : -1;
}

/* Bind the calling thread to the mask's processors; they must all be its
 * own node's (a thread cannot move to another node): -1 otherwise, or for
 * an empty mask, or when the system refuses. */
SHIM_EXPORT int kmp_set_affinity(kmp_affinity_mask_t *mask)
{
    proc_mask_t *m = mask_of(mask, "kmp_set_affinity");
    const int *cpus;
    int per = fj_node_cpus(&cpus), base = node_id() * per, any = 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int p = 0; p < m->nprocs; p++) {
        if (!(m->bits[p / 64] >> (p % 64) & 1))
            continue;
        if (p < base || p >= base + per)
            return -1;
        CPU_SET(cpus[p - base], &set);
        any = 1;
    }
    if (!any || sched_setaffinity(0, sizeof set, &set) != 0)
        return -1;
    return 0;
}
