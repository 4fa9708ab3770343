/*
 * base_log.c - logging to stderr with a per-process prefix.
 * Layer: base.  See base_log.h for where each call may be used.
 */
#include "base_log.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static dsm_log_level_t log_level = DSM_LOG_WARN;
static char log_prefix[32] = "dsm";
static atomic_int fatal_entered;

void dsm_log_set_level(dsm_log_level_t level) { log_level = level; }
dsm_log_level_t dsm_log_level(void) { return log_level; }

void dsm_log_set_rank(int rank)
{
    snprintf(log_prefix, sizeof log_prefix, "dsm[node %d]", rank);
}

static void log_vprint(const char *kind, const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "%s: %s", log_prefix, kind);
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    size_t len = m < 0 ? (size_t)n : (size_t)n + (size_t)m;
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    /* one write(2) keeps lines of concurrent processes whole */
    ssize_t unused = write(STDERR_FILENO, line, len);
    (void)unused;
}

void dsm_log(dsm_log_level_t level, const char *fmt, ...)
{
    if (level > log_level)
        return;
    static const char *const kinds[] = {"error: ", "warning: ", "", "debug: "};
    va_list ap;
    va_start(ap, fmt);
    log_vprint(kinds[level], fmt, ap);
    va_end(ap);
}

/* The first thread to fail ends the process and names the cause.  A later
 * one is often a consequence (the peers the first told to stop close
 * their sockets): it waits for the first's _exit, and ends the process
 * itself only if that does not come within a second. */
void dsm_fatal_claim(void)
{
    static __thread int claimed;
    if (claimed)
        return;
    if (atomic_fetch_add(&fatal_entered, 1) == 0) {
        claimed = 1;
        return;
    }
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 100; i++)
        nanosleep(&tick, NULL);
    _exit(DSM_EXIT_FATAL);
}

void dsm_fatal(const char *fmt, ...)
{
    dsm_fatal_claim();
    va_list ap;
    va_start(ap, fmt);
    log_vprint("fatal: ", fmt, ap);
    va_end(ap);
    _exit(DSM_EXIT_FATAL);
}

char *dsm_utoa(unsigned long long v, int base, char buf[32])
{
    char *p = buf + 31;
    *p = '\0';
    do {
        unsigned d = (unsigned)(v % (unsigned)base);
        *--p = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= (unsigned)base;
    } while (v && p > buf);
    return p;
}

static size_t append(char *buf, size_t len, size_t cap, const char *s)
{
    while (*s && len < cap)
        buf[len++] = *s++;
    return len;
}

void dsm_invariant_failed(const char *check, const char *context)
{
    char line[512];
    size_t cap = sizeof line - 1, len = 0;
    len = append(line, len, cap, log_prefix);
    len = append(line, len, cap, ": invariant violated: ");
    len = append(line, len, cap, check);
    if (context) {
        len = append(line, len, cap, " (");
        len = append(line, len, cap, context);
        len = append(line, len, cap, ")");
    }
    line[len++] = '\n';
    ssize_t unused = write(STDERR_FILENO, line, len);
    (void)unused;
    abort();
}

void dsm_log_sigsafe(const char *a, const char *b)
{
    ssize_t unused;
    unused = write(STDERR_FILENO, log_prefix, strlen(log_prefix));
    unused = write(STDERR_FILENO, ": ", 2);
    if (a)
        unused = write(STDERR_FILENO, a, strlen(a));
    if (b)
        unused = write(STDERR_FILENO, b, strlen(b));
    unused = write(STDERR_FILENO, "\n", 1);
    (void)unused;
}
