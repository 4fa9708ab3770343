/*
 * node_failure.c - a node program that puts itself in a known state, for
 * the failure-injection tests (test_failure.c kills or stops it there).
 *
 * Layer: tests, suite 'reliability'.  Usage: node_failure MODE [ARG]
 *   compute   every node computes forever
 *   fetch     node 0 writes PAGES pages, node 1 reads them, a barrier, for
 *             ever: node 1 spends most of its time fetching pages
 *   barrier   node 0 computes forever, the others wait in a barrier
 *   lock      node 1 takes a lock, computes a while, releases it, for ever;
 *             node 0 computes
 *   barriers  every node runs barriers forever (for SIGSTOP)
 *   busy S    node 0 computes S seconds while the others wait in a
 *             barrier, then the job ends normally
 *   segv      node 1 writes to address 0x18 (outside the sharable space)
 * Every node prints "node R pid P ready" once it is wired up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dsm.h"

#define PAGES 256
#define PAGE 4096

static DSM_SHARABLE unsigned char *g_pages;
static DSM_SHARABLE dsm_lock_t g_lock;
static volatile uint64_t sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void compute_for(double seconds)
{
    double end = now_s() + seconds;
    while (now_s() < end)
        for (int i = 0; i < 10000; i++)
            sink += (uint64_t)i;
}

static void __attribute__((noreturn)) compute_forever(void)
{
    for (;;)
        compute_for(1.0);
}

static void fetch_loop(int rank)
{
    if (rank == 0)
        g_pages = dsm_calloc(PAGES, PAGE);
    dsm_barrier();
    for (uint64_t round = 1;; round++) {
        if (rank == 0)
            for (int p = 0; p < PAGES; p++)
                g_pages[(size_t)p * PAGE] = (unsigned char)round;
        dsm_barrier();
        if (rank == 1)
            for (int p = 0; p < PAGES; p++)
                sink += g_pages[(size_t)p * PAGE];
        dsm_barrier();
    }
}

static void lock_loop(int rank)
{
    if (rank == 0 && dsm_lock_init(&g_lock) != DSM_OK) {
        fprintf(stderr, "node_failure: dsm_lock_init failed\n");
        exit(1);
    }
    dsm_barrier();
    if (rank != 1)
        compute_forever();
    for (;;) {
        dsm_lock_acquire(&g_lock);
        compute_for(0.005);
        dsm_lock_release(&g_lock);
        compute_for(0.001);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: node_failure MODE [ARG]\n");
        return 2;
    }
    const char *mode = argv[1];
    if (dsm_init() != DSM_OK)
        return 1;
    int rank = dsm_node_id();
    dsm_barrier();
    printf("node %d pid %ld ready\n", rank, (long)getpid());
    fflush(stdout);

    if (!strcmp(mode, "compute"))
        compute_forever();
    if (!strcmp(mode, "fetch"))
        fetch_loop(rank);
    if (!strcmp(mode, "barrier")) {
        if (rank == 0)
            compute_forever();
        dsm_barrier();
    }
    if (!strcmp(mode, "lock"))
        lock_loop(rank);
    if (!strcmp(mode, "barriers"))
        for (;;)
            dsm_barrier();
    if (!strcmp(mode, "busy")) {
        if (rank == 0)
            compute_for(argc > 2 ? atof(argv[2]) : 5.0);
        dsm_barrier();
    }
    if (!strcmp(mode, "segv")) {
        if (rank == 1)
            *(volatile int *)(uintptr_t)0x18 = 1;
        dsm_barrier();
    }
    dsm_finalize();
    return 0;
}
