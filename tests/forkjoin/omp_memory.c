/*
 * omp_memory.c - the memory a region shares: globals (zero-initialised,
 * initialised, spanning many pages), a function's static variable, and a
 * heap array from kmp_sharable_malloc; one allocated inside a region by
 * one thread and filled by all; node 0's serial writes seen by every
 * thread of the next region, also when they are so many intervals that
 * their write notices overflow the fork message.  (The program's plain
 * malloc is sharable too: omp_heap.c tests it.)
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <stdlib.h>

#include "kmp_cluster.h"
#include "omp_check.h"

#define BIG (64 * 1024)              /* 512 KiB of longs */
#define HEAP 20000

static long big[BIG];
static long initialised[8] = {1, 2, 3, 4, 5, 6, 7, 8};

static long *counter_cell(void)
{
    static long cell;
    return &cell;
}

/* Node 0 writes the first word of every page of big between regions, in
 * one interval or (with a flush after each write) in 1200: 16 bytes of
 * notice each, more than a fork carries, so the other nodes invalidate
 * every page instead.  Every thread then checks every page. */
#define PAGE_LONGS 512
#define PAGES (BIG / PAGE_LONGS)

static void serial_writes(void)
{
    for (int round = 1; round <= 3; round++) {
        int writes = round == 2 ? 1200 : PAGES;
        for (int k = 0; k < writes; k++) {
            big[(k % PAGES) * PAGE_LONGS] = 1000L * round + k;
            if (round == 2) {
#pragma omp flush
            }
        }
        long bad = 0;
#pragma omp parallel reduction(+ : bad)
        for (int p = 0; p < PAGES; p++) {
            /* the last k with k % PAGES == p */
            int last = (writes - 1 - p) / PAGES * PAGES + p;
            bad += big[p * PAGE_LONGS] != 1000L * round + last;
        }
        CHECK_EQ_LONG(bad, 0);
    }
}

int main(void)
{
    int nth = omp_get_max_threads();
    long *heap = kmp_sharable_malloc(HEAP * sizeof *heap);
    long *plain = malloc(16);
    CHECK(heap != NULL);
    CHECK(kmp_is_sharable(heap));
    CHECK(kmp_is_sharable(plain));   /* dsmcc wraps malloc */
    free(plain);
    long *inner = NULL;

    for (int round = 1; round <= 3; round++) {
#pragma omp parallel
        {
#pragma omp for schedule(static)
            for (int i = 0; i < BIG; i++)
                big[i] = (long)i * round;
#pragma omp for schedule(dynamic, 100)
            for (int i = 0; i < HEAP; i++)
                heap[i] = big[(i * 7) % BIG] + initialised[i % 8];
#pragma omp critical
            *counter_cell() += 1;
        }
        long bad = 0;
        for (int i = 0; i < BIG; i++)
            bad += big[i] != (long)i * round;
        for (int i = 0; i < HEAP; i++)
            bad += heap[i] !=
                   (long)((i * 7) % BIG) * round + initialised[i % 8];
        CHECK_EQ_LONG(bad, 0);
    }
    CHECK_EQ_LONG(*counter_cell(), 3L * nth);

#pragma omp parallel
    {
#pragma omp single
        inner = kmp_sharable_malloc(nth * sizeof *inner);
        inner[omp_get_thread_num()] = 1000 + omp_get_thread_num();
#pragma omp barrier
#pragma omp master
        for (int t = 0; t < nth; t++)
            CHECK_EQ_LONG(inner[t], 1000 + t);
    }
    kmp_sharable_free(inner);
    kmp_sharable_free(heap);
    serial_writes();
    return check_status("omp_memory");
}
