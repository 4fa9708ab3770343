/*
 * tp_direct_copy.c - the copy behind a get from a same-host peer whose
 * segment tp_direct.c mapped: pages that no get has written here before go
 * from the peer's memfd to ours with copy_file_range; the others, and any
 * destination outside this node's offered segments, with memcpy between
 * the mappings.
 *
 * Why (bench/fetch_copy_bench, doc/performance.md): a page fetched for the
 * first time is a fresh page of our memfd, and the mapping of the peer's
 * memfd has no page-table entry for its source.  memcpy then pays a write
 * fault that allocates and zeroes the destination page and a read fault
 * on the source: 3.3-4 us per page on this machine.  copy_file_range
 * touches neither mapping and allocates the destination without zeroing
 * it (a whole-page write into tmpfs): 1.2-2 us per page.  Once a page's
 * entries exist, memcpy is 5-20x faster than any system call (0.08-0.15 us
 * against 0.5-2 us), and re-fetches after invalidations are the steady
 * state.  Asking the kernel which destination pages exist (mincore) costs
 * more than a warm copy, so this file remembers it instead: a bit per page
 * of each offered segment, set when a get has written the page.  The bit
 * only chooses the method; both methods copy the same bytes, so a wrong
 * guess (a page this node wrote itself, a page written through the file
 * but not yet mapped) costs time, never correctness.
 *
 * Layer: transport.  tp_direct_copy_open: wire-up, after tp_direct_map
 * mapped a peer's segments; tp_direct_copy_close: finalize; tp_direct_copy:
 * any thread, the fault handler included (system calls and atomics only:
 * no malloc, no stdio; errno is preserved for the interrupted code).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base_log.h"
#include "sys_region.h"
#include "tp_direct_copy.h"
#include "tp_state.h"

static struct {
    int own_fd[DSM_TP_SEG_COUNT];          /* offered by this node, or -1 */
    _Atomic uint64_t *written[DSM_TP_SEG_COUNT];  /* bit per page */
    size_t written_bytes[DSM_TP_SEG_COUNT];
    int *peer_fd;                          /* [rank][seg], -1: none */
    int ready;
    atomic_int file_copy_failed;           /* the kernel refused: memcpy */
} copy;

static int *peer_fd_slot(int rank, int seg)
{
    return &copy.peer_fd[rank * DSM_TP_SEG_COUNT + seg];
}

static int setup(const tp_record_t *mine)
{
    if (copy.ready)
        return 1;
    copy.peer_fd = malloc(sizeof(int) * (size_t)tp.size * DSM_TP_SEG_COUNT);
    if (!copy.peer_fd)
        return 0;
    for (int i = 0; i < tp.size * DSM_TP_SEG_COUNT; i++)
        copy.peer_fd[i] = -1;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
        copy.own_fd[s] = -1;
        size_t pages = tp.local.size[s] >> DSM_PAGE_SHIFT;
        size_t bytes = (pages + 63) / 64 * sizeof(uint64_t);
        if (mine->map_fd[s] == TP_WIRE_NO_FD || !bytes)
            continue;
        void *bits = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (bits == MAP_FAILED)
            continue;
        copy.written[s] = bits;
        copy.written_bytes[s] = bytes;
        copy.own_fd[s] = (int)mine->map_fd[s];
    }
    copy.ready = 1;
    return 1;
}

void tp_direct_copy_open(int rank, const tp_record_t *peer,
                         const tp_record_t *mine)
{
    if (!setup(mine))
        return;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
        if (!tp.peers[rank].direct[s])
            continue;
        /* the descriptor tp_direct.c mapped, opened again and kept */
        char path[64];
        snprintf(path, sizeof path, "/proc/%u/fd/%u", (unsigned)peer->pid,
                 (unsigned)peer->map_fd[s]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            dsm_debug("node %d's segment %d: copies use memcpy only: %s: %s",
                      rank, s, path, strerror(errno));
        *peer_fd_slot(rank, s) = fd;
    }
}

int tp_direct_copy_peer_fd(int rank, dsm_tp_segment_t seg)
{
    return copy.ready ? *peer_fd_slot(rank, (int)seg) : -1;
}

void tp_direct_copy_close(void)
{
    if (!copy.ready)
        return;
    for (int i = 0; i < tp.size * DSM_TP_SEG_COUNT; i++)
        if (copy.peer_fd[i] >= 0)
            close(copy.peer_fd[i]);
    free(copy.peer_fd);
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++)
        if (copy.written[s])
            munmap(copy.written[s], copy.written_bytes[s]);
    memset(&copy, 0, sizeof copy);
}

static int written_before(int seg, size_t page)
{
    return (atomic_load_explicit(&copy.written[seg][page / 64],
                                 memory_order_relaxed) >> (page % 64)) & 1;
}

static void mark_written(int seg, size_t first, size_t n)
{
    for (size_t p = first; p < first + n; p++)
        atomic_fetch_or_explicit(&copy.written[seg][p / 64],
                                 (uint64_t)1 << (p % 64),
                                 memory_order_relaxed);
}

/* Copy len bytes from the peer's descriptor at from to ours at to;
 * returns how many were copied (all, unless the kernel refused). */
static size_t file_copy(int in_fd, uint64_t from, int out_fd, uint64_t to,
                        size_t len)
{
    loff_t in = (loff_t)from, out = (loff_t)to;
    size_t done = 0;
    while (done < len) {
        ssize_t n = copy_file_range(in_fd, &in, out_fd, &out, len - done, 0);
        if (n > 0) {
            done += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            /* e.g. EXDEV or ENOSYS on an older kernel: memcpy from now on */
            atomic_store(&copy.file_copy_failed, 1);
            break;
        }
    }
    return done;
}

/* The own offered segment that holds [local, local+len), or -1. */
static int own_segment(const void *local, size_t len, uint64_t *offset)
{
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
        uintptr_t base = (uintptr_t)tp.local.base[s];
        uintptr_t at = (uintptr_t)local;
        if (copy.own_fd[s] < 0 || at < base ||
            at - base > tp.local.size[s] ||
            len > tp.local.size[s] - (at - base))
            continue;
        *offset = at - base;
        return s;
    }
    return -1;
}

void tp_direct_copy(int rank, dsm_tp_segment_t seg, uint64_t offset,
                    void *local, size_t len)
{
    const unsigned char *src = tp.peers[rank].direct[seg];
    const size_t page_mask = DSM_PAGE_SIZE - 1;
    uint64_t to = 0;
    int own = -1;
    if (copy.ready && *peer_fd_slot(rank, seg) >= 0 &&
        !atomic_load_explicit(&copy.file_copy_failed, memory_order_relaxed) &&
        !(offset & page_mask) && !(len & page_mask))
        own = own_segment(local, len, &to);
    if (own < 0 || (to & page_mask)) {
        memcpy(local, src + offset, len);
        return;
    }
    int saved_errno = errno;
    int in_fd = *peer_fd_slot(rank, seg);
    size_t pages = len >> DSM_PAGE_SHIFT, first = to >> DSM_PAGE_SHIFT;
    /* runs of pages written before (memcpy) and new ones (the file copy) */
    for (size_t p = 0; p < pages;) {
        int fresh = !written_before(own, first + p);
        size_t q = p + 1;
        while (q < pages && written_before(own, first + q) == !fresh)
            q++;
        size_t at = p << DSM_PAGE_SHIFT, bytes = (q - p) << DSM_PAGE_SHIFT;
        size_t done = 0;
        if (fresh && !atomic_load_explicit(&copy.file_copy_failed,
                                           memory_order_relaxed))
            done = file_copy(in_fd, offset + at, copy.own_fd[own], to + at,
                             bytes);
        if (done < bytes)
            memcpy((char *)local + at + done, src + offset + at + done,
                   bytes - done);
        if (fresh)
            mark_written(own, first + p, q - p);
        p = q;
    }
    errno = saved_errno;
}
