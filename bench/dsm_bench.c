/*
 * dsm_bench.c - the seeds' DSM table, measured in one run on 2 nodes, next
 * to the raw floors: allocate a page in the sharable heap; read a page last
 * written by another node; write a page homed at another node; and the
 * floors, an mprotect + SIGSEGV + mprotect round trip and a UCX get of one
 * page.  Run it under dsmrun -n 2.  Prints figures, never asserts them.
 *
 * Usage: dsmrun -n 2 dsm_bench [pages]      (default 2000)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "dsm.h"
#include "sys_fault.h"
#include "transport.h"

#define PAGE 4096

static DSM_SHARABLE char *g_pages;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* ---- floor 1: mprotect + SIGSEGV + mprotect, outside the DSM ---------- */
static char *floor_area;
static size_t floor_pages;

static void floor_handler(int sig, siginfo_t *si, void *ctx)
{
    uintptr_t page = (uintptr_t)si->si_addr & ~(uintptr_t)(PAGE - 1);
    mprotect((void *)page, PAGE, PROT_READ | PROT_WRITE);
}

static double fault_floor_us(size_t pages)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = floor_handler;
    sa.sa_flags = SA_SIGINFO;
    floor_pages = pages;
    floor_area = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(floor_area, 1, pages * PAGE);
    mprotect(floor_area, pages * PAGE, PROT_NONE);
    sigaction(SIGSEGV, &sa, &old);
    double t0 = now_us();
    for (size_t i = 0; i < pages; i++)
        floor_area[i * PAGE] = 2;
    double t = (now_us() - t0) / (double)pages;
    sigaction(SIGSEGV, &old, NULL);
    dsm_sys_fault_reassert();
    munmap(floor_area, pages * PAGE);
    return t;
}

#define ROUNDS 7

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    size_t pages = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    if (pages < 10 || pages > 100000) {
        fprintf(stderr, "usage: dsm_bench [pages 10..100000]\n");
        return 2;
    }
    if (dsm_init() != DSM_OK)
        return 1;
    int rank = dsm_node_id();
    if (dsm_num_nodes() != 2) {
        fprintf(stderr, "dsm_bench: run it with dsmrun -n 2\n");
        dsm_finalize();
        return 2;
    }
    double alloc[ROUNDS], fault[ROUNDS], get[ROUNDS], read_again[ROUNDS],
        write_remote[ROUNDS], write_release[ROUNDS], read_first = 0;
    static char buf[PAGE];
    void **blocks = malloc(pages * sizeof *blocks);
    volatile char sink = 0;

    if (rank == 0) {
        g_pages = dsm_aligned_alloc(PAGE, pages * PAGE);
        for (size_t i = 0; i < pages; i++)
            g_pages[i * PAGE] = 1;
    }
    dsm_barrier();
    if (rank == 1) {   /* first touch: share handshake + get */
        double t0 = now_us();
        for (size_t i = 0; i < pages; i++)
            sink += g_pages[i * PAGE];
        read_first = (now_us() - t0) / (double)pages;
    }
    dsm_barrier();

    for (int r = 0; r < ROUNDS; r++) {
        /* allocation from the own arena */
        double t0 = now_us();
        for (size_t i = 0; i < pages; i++)
            blocks[i] = dsm_malloc(PAGE);
        alloc[r] = (now_us() - t0) / (double)pages;
        for (size_t i = 0; i < pages; i++)
            dsm_free(blocks[i]);
        fault[r] = fault_floor_us(pages);

        /* node 1 gets pages from node 0 while node 0 waits in a barrier,
         * as in the reads below */
        if (rank == 1) {
            t0 = now_us();
            for (size_t i = 0; i < pages; i++)
                if (dsm_tp_get(0, DSM_TP_SEG_REGION,
                               (uint64_t)(i % 64) * PAGE, buf, PAGE) !=
                    DSM_OK)
                    abort();
            get[r] = (now_us() - t0) / (double)pages;
        }
        dsm_barrier();
        if (rank == 0)   /* the home writes: node 1's copies go stale */
            for (size_t i = 0; i < pages; i++)
                g_pages[i * PAGE] = (char)r;
        dsm_barrier();
        if (rank == 1) {
            t0 = now_us();
            for (size_t i = 0; i < pages; i++)
                sink += g_pages[i * PAGE];
            read_again[r] = (now_us() - t0) / (double)pages;
        }
        dsm_barrier();
        if (rank == 0)
            for (size_t i = 0; i < pages; i++)
                g_pages[i * PAGE] = (char)(r + 1);
        dsm_barrier();
        if (rank == 1) {
            /* write a page homed at node 0: fault, fetch, twin; the diff
             * leaves at the release */
            t0 = now_us();
            for (size_t i = 0; i < pages; i++)
                g_pages[i * PAGE + 8] = 5;
            double t1 = now_us();
            dsm_flush();
            write_remote[r] = (t1 - t0) / (double)pages;
            write_release[r] = (now_us() - t1) / (double)pages;
        }
        dsm_barrier();
    }
    (void)sink;
    free(blocks);

    if (rank == 1) {
        double f = median(fault, ROUNDS), g = median(get, ROUNDS);
        double floor = f + g;
        double ra = median(read_again, ROUNDS), wr = median(write_remote, ROUNDS);
        printf("dsm_bench: %zu pages x %d rounds (medians), 2 nodes x 1 thread, "
               "one machine\n", pages, ROUNDS);
        printf("%-44s %10s %10s\n", "operation", "us/page", "x floor");
        printf("%-44s %10.2f\n", "floor: mprotect+SIGSEGV+mprotect", f);
        printf("%-44s %10.2f\n", "floor: UCX get of one page", g);
        printf("%-44s %10.2f\n", "floor: fault + get", floor);
        printf("%-44s %10.3f\n", "allocate a page (dsm_malloc 4 KiB)",
               median(alloc, ROUNDS));
        printf("%-44s %10.2f %10.2f\n", "read a remote page, first touch",
               read_first, read_first / floor);
        printf("%-44s %10.2f %10.2f\n", "read a page written by the other node",
               ra, ra / floor);
        printf("%-44s %10.2f %10.2f\n", "write a page homed at the other node",
               wr, wr / floor);
        printf("%-44s %10.2f\n", "  + its diff at the release",
               median(write_release, ROUNDS));
        printf("Intel Cluster OpenMP (InfiniBand): allocate 23 us, read 95 us, "
               "write 94 us\n");
    }
    if (rank == 0)
        dsm_free(g_pages);
    dsm_finalize();
    return 0;
}
