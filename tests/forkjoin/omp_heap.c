/*
 * omp_heap.c - the program's own heap is sharable (dsmcc wraps malloc and
 * friends): arrays from malloc, calloc, realloc, posix_memalign and
 * aligned_alloc written in one region and read by other threads (on other
 * nodes) in the next; a block grown by realloc keeps its contents; a block
 * one thread (on the last node) allocates inside a region is used by all
 * and resized and freed by the master; a libc block (strdup) is freed, and
 * grown by realloc into the sharable heap; per-thread scratch allocated
 * and freed inside a region on every node.
 *
 * Test program (dsmcc, dsmrun).  Built with -DOMP_CHECK_LIBOMP for the
 * libomp cross-check, where nothing is sharable to check.  Exit status 0
 * when everything matched.
 */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "omp_check.h"

#ifdef OMP_CHECK_LIBOMP
#define SHARABLE(p) ((p) != NULL)
#else
#include <dsm.h>
#define SHARABLE(p) dsm_is_sharable(p)
#endif

#define N 6000      /* ints: several pages */

static int value(int i, int round) { return i * 3 + round * 100000; }

/* Written by thread t in one region, read by thread nth-1-t (another node
 * when there are several) in the next. */
static long write_then_read(int *a, int n, int round)
{
    long bad = 0;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        a[i] = value(i, round);
#pragma omp parallel reduction(+ : bad)
    {
        int nth = omp_get_num_threads(), me = omp_get_thread_num();
        int reader = nth - 1 - me;           /* reads the block of thread */
        int lo = (int)((long)n * reader / nth);
        int hi = (int)((long)n * (reader + 1) / nth);
        for (int i = lo; i < hi; i++)
            bad += a[i] != value(i, round);
    }
    return bad;
}

static void arrays(void)
{
    int *a = malloc(N * sizeof *a);
    CHECK(SHARABLE(a));
    CHECK_EQ_LONG(write_then_read(a, N, 1), 0);

    a = realloc(a, 2 * N * sizeof *a);   /* grows: may move */
    CHECK(SHARABLE(a));
    long kept = 0;
    for (int i = 0; i < N; i++)
        kept += a[i] == value(i, 1);
    CHECK_EQ_LONG(kept, N);
    CHECK_EQ_LONG(write_then_read(a, 2 * N, 2), 0);
    free(a);

    long zeros = 0;
    int *z = calloc(N, sizeof *z);
    CHECK(SHARABLE(z));
#pragma omp parallel for reduction(+ : zeros)
    for (int i = 0; i < N; i++)
        zeros += z[i] == 0;
    CHECK_EQ_LONG(zeros, N);
    CHECK_EQ_LONG(write_then_read(z, N, 3), 0);
    free(z);

    void *p = NULL;
    CHECK(posix_memalign(&p, 256, N * sizeof(int)) == 0);
    CHECK(((uintptr_t)p & 255) == 0 && SHARABLE(p));
    CHECK_EQ_LONG(write_then_read(p, N, 4), 0);
    free(p);
    int *q = aligned_alloc(4096, N * sizeof *q);
    CHECK(((uintptr_t)q & 4095) == 0 && SHARABLE(q));
    CHECK_EQ_LONG(write_then_read(q, N, 5), 0);
    free(q);

    /* count * size overflows; volatile: the call is not folded away */
    volatile size_t huge = SIZE_MAX / 2;
    void *volatile none = calloc(huge, 4);
    CHECK(none == NULL);
    free(none);
    RESULT("arrays done");
}

/* A block the last thread allocates inside a region (on the last node),
 * filled by all; the master reads, resizes and frees it afterwards. */
static void allocated_in_region(void)
{
    int *block = NULL;
    long bad = 0;
#pragma omp parallel
    {
        int nth = omp_get_num_threads();
        if (omp_get_thread_num() == nth - 1)
            block = malloc(N * sizeof *block);
#pragma omp barrier
#pragma omp for schedule(dynamic, 100)
        for (int i = 0; i < N; i++)
            block[i] = value(i, 6);
    }
    CHECK(SHARABLE(block));
    for (int i = 0; i < N; i++)
        bad += block[i] != value(i, 6);
    block = realloc(block, N / 2 * sizeof *block);
    for (int i = 0; i < N / 2; i++)
        bad += block[i] != value(i, 6);
    free(block);
    CHECK_EQ_LONG(bad, 0);
    RESULT("allocated in a region: %ld wrong", bad);
}

/* Scratch every thread allocates, uses and frees inside a region. */
static void scratch(void)
{
    long sum = 0;
#pragma omp parallel reduction(+ : sum)
    for (int round = 0; round < 20; round++) {
        int n = 100 + round * 37;
        long *tmp = malloc(n * sizeof *tmp);
        for (int i = 0; i < n; i++)
            tmp[i] = i;
        tmp = realloc(tmp, 2 * n * sizeof *tmp);
        for (int i = 0; i < n; i++)
            sum += tmp[i];
        free(tmp);
    }
    long want = 0;
    for (int round = 0; round < 20; round++) {
        long n = 100 + round * 37;
        want += n * (n - 1) / 2;
    }
    CHECK_EQ_LONG(sum, want * omp_get_max_threads());
    RESULT("scratch sum %ld", sum);
}

/* Blocks the C library allocates stay libc's: free gives them back to
 * libc; realloc grows one into the sharable heap. */
static void libc_blocks(void)
{
    char *copy = strdup("a string from libc");
    CHECK(copy && strcmp(copy, "a string from libc") == 0);
    free(copy);

    char *grown = strdup("grown");
    grown = realloc(grown, 3 * 4096);
    CHECK(SHARABLE(grown));
    CHECK(strcmp(grown, "grown") == 0);
    long same = 0;
#pragma omp parallel reduction(+ : same)
    same += strcmp(grown, "grown") == 0;
    CHECK_EQ_LONG(same, omp_get_max_threads());
    free(grown);
    RESULT("libc blocks: %ld threads read the grown string", same);
}

int main(void)
{
    arrays();
    allocated_in_region();
    scratch();
    libc_blocks();
    return check_status("omp_heap");
}
