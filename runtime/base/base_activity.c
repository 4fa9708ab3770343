/*
 * base_activity.c - wording of the activity board's entries.
 * Layer: base.  dsmrun and tests only (snprintf): see base_activity.h.
 */
#include "base_activity.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(dsm_activity_entry_t) == 128,
               "an activity entry is 128 bytes");

/* Appends to buf[0..len) after `used` characters; returns the new length,
 * truncated (and still NUL-terminated) when the buffer is full. */
static size_t append(char *buf, size_t len, size_t used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t append(char *buf, size_t len, size_t used, const char *fmt, ...)
{
    if (used + 1 >= len)
        return used;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
    if (n < 0)
        return used;
    used += (size_t)n;
    return used < len ? used : len - 1;
}

static size_t append_about(char *buf, size_t len, size_t used,
                           const dsm_activity_entry_t *e)
{
    unsigned long long arg = e->arg, arg2 = e->arg2;
    long page = sysconf(_SC_PAGESIZE);
    unsigned long long page_size = page > 0 ? (unsigned long long)page : 4096;
    switch (e->about) {
    case DSM_ACTIVITY_ABOUT_EPOCH:
        return append(buf, len, used, " (barrier epoch %llu)", arg);
    case DSM_ACTIVITY_ABOUT_LOCK:
        if (arg >> 63)   /* a named lock's handle: its key (coh_lock.c) */
            return append(buf, len, used, " (named lock 0x%llx)",
                          arg & ~(1ull << 63));
        return append(buf, len, used, " (lock %u of node %u)",
                      (unsigned)(arg & 0xffffffffu),
                      (unsigned)(arg >> 32) - 1u);
    case DSM_ACTIVITY_ABOUT_PAGE:
        return append(buf, len, used, " (page %llu)", arg);
    case DSM_ACTIVITY_ABOUT_ATOMIC:
        return append(buf, len, used, " (page %llu, byte %llu)",
                      arg / page_size, arg % page_size);
    case DSM_ACTIVITY_ABOUT_PARTIAL:
        return append(buf, len, used, " (reduction %llu of parallel region "
                      "%llu)", arg2, arg);
    case DSM_ACTIVITY_ABOUT_TEAM_BARRIER:
        return append(buf, len, used, " (barrier %llu of parallel region "
                      "%llu)", arg2, arg);
    case DSM_ACTIVITY_ABOUT_WORD:
        return append(buf, len, used, " (control word %llu to reach %llu)",
                      arg, arg2);
    default:
        return used;
    }
}

size_t dsm_activity_describe(const dsm_activity_entry_t *e, char *buf,
                             size_t len)
{
    if (len == 0)
        return 0;
    buf[0] = '\0';
    size_t used = 0;
    char what[DSM_ACTIVITY_WHAT_MAX];
    long page = sysconf(_SC_PAGESIZE);
    switch (e->kind) {
    case DSM_ACTIVITY_STARTING:
        used = append(buf, len, used, "starting");
        break;
    case DSM_ACTIVITY_COMPUTING:
        used = append(buf, len, used, "computing");
        break;
    case DSM_ACTIVITY_WAITING:
        memcpy(what, e->what, sizeof what);
        what[sizeof what - 1] = '\0';
        used = append(buf, len, used, "waiting for %s", what);
        if (e->peer >= 0 && e->about == DSM_ACTIVITY_ABOUT_TRANSFER)
            used = append(buf, len, used, " node %d", (int)e->peer);
        else if (e->peer >= 0)
            used = append(buf, len, used, " from node %d", (int)e->peer);
        used = append_about(buf, len, used, e);
        break;
    case DSM_ACTIVITY_FETCHING:
        if (e->segment == 0)
            used = append(buf, len, used, "fetching page %llu from node %d",
                          (unsigned long long)(e->arg /
                                               (uint64_t)(page > 0 ? page
                                                                   : 4096)),
                          (int)e->peer);
        else
            used = append(buf, len, used,
                          "reading the control segment of node %d",
                          (int)e->peer);
        break;
    case DSM_ACTIVITY_FINISHING:
        used = append(buf, len, used, "finishing");
        break;
    default:
        return 0;
    }
    if (e->locks_held > 0 && (e->last_lock >> 63))
        used = append(buf, len, used, " while holding %u lock%s (last: "
                      "named lock 0x%llx)", (unsigned)e->locks_held,
                      e->locks_held == 1 ? "" : "s",
                      (unsigned long long)(e->last_lock & ~(1ull << 63)));
    else if (e->locks_held > 0)
        used = append(buf, len, used, " while holding %u lock%s (last: lock "
                      "%u of node %u)", (unsigned)e->locks_held,
                      e->locks_held == 1 ? "" : "s",
                      (unsigned)(e->last_lock & 0xffffffffu),
                      (unsigned)(e->last_lock >> 32) - 1u);
    return used;
}

size_t dsm_activity_describe_thread(const dsm_activity_entry_t *e,
                                    char *buf, size_t len)
{
    if (len == 0)
        return 0;
    buf[0] = '\0';
    if (e->kind == DSM_ACTIVITY_UNUSED || e->kind >= DSM_ACTIVITY_KIND_COUNT)
        return 0;
    if (e->thread >= 0)
        return append(buf, len, 0, "thread %d (tid %d)", (int)e->thread,
                      (int)e->tid);
    return append(buf, len, 0, "a runtime thread (tid %d)", (int)e->tid);
}

size_t dsm_activity_describe_node(const void *block, char *buf, size_t len)
{
    const dsm_activity_entry_t *entries = block;
    char one[256], seen[DSM_ACTIVITY_SLOTS][256];
    int distinct = 0;
    size_t used = 0;
    if (len == 0)
        return 0;
    buf[0] = '\0';
    for (int i = 0; i < DSM_ACTIVITY_SLOTS; i++) {
        if (dsm_activity_describe(&entries[i], one, sizeof one) == 0)
            continue;
        int repeated = 0;
        for (int j = 0; j < distinct && !repeated; j++)
            repeated = !strcmp(seen[j], one);
        if (repeated)
            continue;
        memcpy(seen[distinct++], one, sizeof one);
        used = append(buf, len, used, "%s%s", used ? ", " : "", one);
    }
    return used;
}
