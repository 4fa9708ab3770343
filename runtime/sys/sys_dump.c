/*
 * sys_dump.c - what a node's core dump holds: huge sparse shared mappings
 * stay out, the application view's data goes in at a crash.
 * Layer: sys.  See sys_dump.h for the calling rules;
 * dsm_sys_dump_prepare runs in signal context: no malloc, no stdio.
 */
#include "sys_dump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base_log.h"

/* coredump_filter bit: anonymous shared memory, which includes memfds */
#define FILTER_ANON_SHARED 0x2u
#define FILTER_PATH "/proc/self/coredump_filter"
/* Holes shorter than this are dumped (the kernel allocates their pages)
 * rather than split off: fewer mappings, fewer system calls. */
#define MIN_HOLE ((off_t)64 << 10)
#define MAX_WINDOWS 8

typedef struct dump_window {
    uintptr_t base;
    size_t len;
    int memfd;
    size_t offset;
} dump_window_t;

static dump_window_t windows[MAX_WINDOWS];
static int nwindows;
static unsigned filter_before;   /* the filter limit() found */
static int limited;              /* limit() cleared FILTER_ANON_SHARED */
static atomic_int prepared;

void dsm_sys_dump_exclude(void *addr, size_t len)
{
    if (madvise(addr, len, MADV_DONTDUMP) != 0)
        dsm_debug("keeping %zu bytes at %p out of core dumps: %s", len,
                  addr, strerror(errno));
}

static int read_filter(unsigned *value)
{
    char text[32];
    int fd = open(FILTER_PATH, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    char *end;
    unsigned long v = strtoul(text, &end, 16);
    if (end == text)
        return -1;
    *value = (unsigned)v;
    return 0;
}

/* async-signal-safe */
static int write_filter(unsigned value)
{
    char digits[32], text[40] = "0x";
    const char *hex = dsm_utoa(value, 16, digits);
    size_t len = strlen(hex);
    memcpy(text + 2, hex, len);
    int fd = open(FILTER_PATH, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, len + 2);
    close(fd);
    return n == (ssize_t)(len + 2) ? 0 : -1;
}

void dsm_sys_dump_limit(void)
{
    unsigned v;
    if (limited || read_filter(&v) != 0 || !(v & FILTER_ANON_SHARED))
        return;
    if (write_filter(v & ~FILTER_ANON_SHARED) != 0) {
        dsm_debug("cannot write %s: %s", FILTER_PATH, strerror(errno));
        return;
    }
    filter_before = v;
    limited = 1;
}

void dsm_sys_dump_window(uintptr_t base, size_t len, int memfd,
                         size_t offset)
{
    if (nwindows == MAX_WINDOWS) {
        /* its data stays out of a core: safe, only less useful */
        dsm_debug("more than %d sharable windows: the one at 0x%lx stays "
                  "out of core dumps", MAX_WINDOWS, (unsigned long)base);
        return;
    }
    windows[nwindows++] = (dump_window_t){base, len, memfd, offset};
}

void dsm_sys_dump_forget(int memfd)
{
    /* the windows stay mapped, but their holes can no longer be found:
     * out of any core for good */
    int kept = 0;
    for (int i = 0; i < nwindows; i++) {
        if (windows[i].memfd == memfd)
            dsm_sys_dump_exclude((void *)windows[i].base, windows[i].len);
        else
            windows[kept++] = windows[i];
    }
    nwindows = kept;
}

/* Exclude the holes of one window; 0 when every hole is excluded. */
static int exclude_holes(const dump_window_t *w)
{
    off_t off = (off_t)w->offset, end = (off_t)(w->offset + w->len);
    while (off < end) {
        off_t data = lseek(w->memfd, off, SEEK_DATA);
        if (data < 0 && errno != ENXIO)   /* ENXIO: no data after off */
            return -1;
        if (data < 0 || data > end)
            data = end;
        /* [off, data) is a hole; a short one inside the window is dumped */
        if (data > off && (data - off >= MIN_HOLE || data == end) &&
            madvise((void *)(w->base + (uintptr_t)(off - (off_t)w->offset)),
                    (size_t)(data - off), MADV_DONTDUMP) != 0)
            return -1;
        if (data == end)
            break;
        off = lseek(w->memfd, data, SEEK_HOLE);
        if (off < 0)
            return -1;
    }
    return 0;
}

void dsm_sys_dump_prepare(void)
{
    if (atomic_exchange(&prepared, 1))
        return;
    int saved_errno = errno;
    int complete = 1;
    for (int i = 0; i < nwindows; i++)
        if (exclude_holes(&windows[i]) != 0)
            complete = 0;
    /* a window not walked to its end still has holes: the core then goes
     * without anonymous shared memory rather than allocate them all */
    if (limited && complete)
        write_filter(filter_before);
    errno = saved_errno;
}
