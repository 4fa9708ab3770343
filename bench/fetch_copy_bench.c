/*
 * fetch_copy_bench.c - how fast can a node bring N pages of a same-host
 * peer's memfd into its own memfd?  The transport's mapped get
 * (tp_direct.c) does exactly this; this program compares the ways the
 * kernel offers, on the kernel it runs on, so the choice can be checked
 * again on another machine.
 *
 * Set-up, in one process (the costs are those of two processes: the page
 * cache belongs to the file, page tables to the mapping):
 *   - the "peer" memfd, populated through a mapping that is then removed,
 *     and opened again through /proc/self/fd (a file description of our
 *     own, as dsmomp opens a peer's) and mapped MAP_SHARED: the source;
 *   - "our" memfd and its read-write mapping (the runtime view): the
 *     destination.
 * Three states of a block before its copy: cold, the destination pages
 * were never allocated (a first fetch) and the source mapping has no
 * page-table entries for them; allocated, the destination pages exist but
 * neither mapping has entries (a re-fetch of a page first fetched without
 * the mapping); warm, both mapped (a re-fetch after memcpy).
 *
 * Methods: memcpy between the mappings (what the transport did); pread
 * from the peer's descriptor into our mapping; pwrite into our descriptor
 * from the peer's mapping; copy_file_range between the two descriptors;
 * memcpy after MADV_POPULATE_WRITE of the destination, or after
 * MADV_POPULATE_READ of the source as well; memcpy after fallocate of the
 * destination.
 *
 * Usage: fetch_copy_bench [rounds]     (default 15; median per cell)
 * Prints microseconds per page; never asserts.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

#define PAGE 4096ul
#define AREA_PAGES 4096ul          /* 16 MiB of source, cycled through */
#define MAX_ROUNDS 101

static int peer_fd, my_fd;
static char *src_map, *dst_map;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void full_pread(int fd, char *to, size_t len, off_t off)
{
    while (len) {
        ssize_t n = pread(fd, to, len, off);
        if (n <= 0)
            die("pread");
        to += n, len -= (size_t)n, off += n;
    }
}

static void full_pwrite(int fd, const char *from, size_t len, off_t off)
{
    while (len) {
        ssize_t n = pwrite(fd, from, len, off);
        if (n <= 0)
            die("pwrite");
        from += n, len -= (size_t)n, off += n;
    }
}

static void m_memcpy(size_t off, size_t len)
{
    memcpy(dst_map + off, src_map + off, len);
}

static void m_pread(size_t off, size_t len)
{
    full_pread(peer_fd, dst_map + off, len, (off_t)off);
}

static void m_pwrite(size_t off, size_t len)
{
    full_pwrite(my_fd, src_map + off, len, (off_t)off);
}

static void m_copy_file_range(size_t off, size_t len)
{
    loff_t in = (loff_t)off, out = (loff_t)off;
    while (len) {
        ssize_t n = copy_file_range(peer_fd, &in, my_fd, &out, len, 0);
        if (n <= 0)
            die("copy_file_range");
        len -= (size_t)n;
    }
}

static void m_populate_dst(size_t off, size_t len)
{
    if (madvise(dst_map + off, len, MADV_POPULATE_WRITE))
        die("MADV_POPULATE_WRITE");
    memcpy(dst_map + off, src_map + off, len);
}

static void m_populate_both(size_t off, size_t len)
{
    if (madvise(src_map + off, len, MADV_POPULATE_READ))
        die("MADV_POPULATE_READ");
    m_populate_dst(off, len);
}

static void m_fallocate(size_t off, size_t len)
{
    if (fallocate(my_fd, 0, (off_t)off, (off_t)len))
        die("fallocate");
    memcpy(dst_map + off, src_map + off, len);
}

/* what the transport could do without knowing the destination's state:
 * ask the kernel which destination pages exist (mincore on a shared
 * mapping of a memfd reports the file's pages), copy_file_range when some
 * do not, memcpy when all do */
static void m_mincore_choice(size_t off, size_t len)
{
    unsigned char vec[256];
    if (mincore(dst_map + off, len, vec))
        die("mincore");
    for (size_t p = 0; p < len / PAGE; p++)
        if (!(vec[p] & 1)) {
            m_copy_file_range(off, len);
            return;
        }
    memcpy(dst_map + off, src_map + off, len);
}

static const struct method {
    const char *name;
    void (*copy)(size_t off, size_t len);
} methods[] = {
    {"memcpy", m_memcpy},
    {"pread", m_pread},
    {"pwrite", m_pwrite},
    {"copy_file_range", m_copy_file_range},
    {"populate_write+memcpy", m_populate_dst},
    {"populate_both+memcpy", m_populate_both},
    {"fallocate+memcpy", m_fallocate},
    {"mincore?cfr:memcpy", m_mincore_choice},
};
#define NMETHODS (sizeof methods / sizeof *methods)

static const size_t sizes[] = {1, 4, 16, 32, 64, 128, 256};
#define NSIZES (sizeof sizes / sizeof *sizes)

/* The destination's state before a copy (a block of len bytes at off). */
enum { COLD, ALLOCATED, WARM, NSTATES };
static const char *const state_names[NSTATES] = {
    "cold (destination never allocated, source not mapped)",
    "allocated (destination pages exist, neither side mapped)",
    "warm (destination allocated and mapped, source mapped)",
};

static void prepare(int state, size_t off, size_t len)
{
    if (fallocate(my_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)off, (off_t)len))
        die("punch hole");
    if (madvise(src_map + off, len, MADV_DONTNEED))
        die("MADV_DONTNEED");
    if (state == COLD)
        return;
    memset(dst_map + off, 0xee, len);
    memcpy(dst_map + off, src_map + off, len);
    /* on a shared mapping this drops page-table entries, not pages */
    if (state == ALLOCATED && (madvise(dst_map + off, len, MADV_DONTNEED) ||
                               madvise(src_map + off, len, MADV_DONTNEED)))
        die("MADV_DONTNEED");
}

static int check(size_t off, size_t len)
{
    for (size_t w = off / 8; w < (off + len) / 8; w++)
        if (((uint64_t *)dst_map)[w] != w * 0x9e3779b97f4a7c15ull)
            return 0;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: %s [rounds 1..%d]\n", argv[0], MAX_ROUNDS);
        return 2;
    }
    size_t area = AREA_PAGES * PAGE;
    /* both files are much larger than what is populated, as the region is */
    size_t file_size = (size_t)1 << 34;

    int peer_own = memfd_create("bench-peer", MFD_CLOEXEC);
    my_fd = memfd_create("bench-mine", MFD_CLOEXEC);
    if (peer_own < 0 || my_fd < 0)
        die("memfd_create");
    if (ftruncate(peer_own, (off_t)file_size) || ftruncate(my_fd, (off_t)file_size))
        die("ftruncate");
    uint64_t *fill = mmap(NULL, area, PROT_READ | PROT_WRITE, MAP_SHARED,
                          peer_own, 0);
    if (fill == MAP_FAILED)
        die("mmap");
    for (size_t w = 0; w < area / 8; w++)
        fill[w] = w * 0x9e3779b97f4a7c15ull;
    munmap(fill, area);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", peer_own);
    peer_fd = open(path, O_RDWR | O_CLOEXEC);
    if (peer_fd < 0)
        die(path);
    src_map = mmap(NULL, file_size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_NORESERVE, peer_fd, 0);
    dst_map = mmap(NULL, file_size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_NORESERVE, my_fd, 0);
    if (src_map == MAP_FAILED || dst_map == MAP_FAILED)
        die("mmap");

    static double us[NSTATES][NMETHODS][NSIZES][MAX_ROUNDS];
    int bad = 0;
    /* rounds outermost and methods alternating, so that a noisy moment
     * spreads over every method instead of spoiling one */
    for (int r = 0; r < rounds; r++)
        for (int st = 0; st < NSTATES; st++)
            for (size_t s = 0; s < NSIZES; s++)
                for (size_t m = 0; m < NMETHODS; m++) {
                    size_t len = sizes[s] * PAGE;
                    size_t blocks = area / len < 16 ? area / len : 16;
                    double total = 0;
                    for (size_t b = 0; b < blocks; b++) {
                        size_t off = b * len;
                        prepare(st, off, len);
                        double t0 = now_us();
                        methods[m].copy(off, len);
                        total += now_us() - t0;
                        bad += st == COLD && !check(off, len);
                    }
                    us[st][m][s][r] = total / (double)(blocks * sizes[s]);
                }
    for (int st = 0; st < NSTATES; st++) {
        printf("\n%s:\nus per page, median of %d rounds (pages per copy)\n",
               state_names[st], rounds);
        printf("%-24s", "method");
        for (size_t s = 0; s < NSIZES; s++)
            printf(" %7zu", sizes[s]);
        printf("\n");
        for (size_t m = 0; m < NMETHODS; m++) {
            printf("%-24s", methods[m].name);
            for (size_t s = 0; s < NSIZES; s++) {
                double *v = us[st][m][s];
                qsort(v, (size_t)rounds, sizeof *v, cmp_double);
                printf(" %7.3f", v[rounds / 2]);
            }
            printf("\n");
        }
    }
    if (bad)
        printf("\n%d copies were WRONG\n", bad);
    return bad != 0;
}
