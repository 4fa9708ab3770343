/*
 * soak_jacobi.c - Jacobi sweeps for a long time, watching each node's
 * resident memory: the growth between the end of the first thousand
 * iterations and the last thousand must stay under 5%.
 *
 * Layer: tests, suite 'soak'.  An ordinary OpenMP program built with dsmcc
 * and run under dsmrun.  Usage: soak_jacobi [ITERATIONS [SIZE]]
 * (default 20000 iterations of a 128 x 128 grid).  Each node's thread 0
 * samples /proc/self/statm every SAMPLE_EVERY iterations.  Prints one
 * "figure:" line per node; exit status 1 if a node grew 5% or more.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kmp_cluster.h"

#define MAX_NODES 64
#define SAMPLE_EVERY 100
#define WINDOW 1000

static long rss_after_first[MAX_NODES];   /* KiB, after WINDOW iterations */
static long rss_last_max[MAX_NODES];      /* KiB, max over the last WINDOW */

static long resident_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, pages = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &pages) != 2)
            pages = 0;
        fclose(f);
    }
    return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

static void sample(long done, long iterations)
{
#pragma omp parallel
    {
        if (kmp_get_process_thread_num() == 0) {
            int node = kmp_get_process_num();
            long kib = resident_kib();
            if (done == WINDOW)
                rss_after_first[node] = kib;
            if (done > iterations - WINDOW && kib > rss_last_max[node])
                rss_last_max[node] = kib;
        }
    }
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 20000;
    long n = argc > 2 ? atol(argv[2]) : 128;
    if (iterations < 2 * WINDOW || n < 2) {
        fprintf(stderr, "usage: soak_jacobi [ITERATIONS >= %d [SIZE]]\n",
                2 * WINDOW);
        return 2;
    }
    long row = n + 2;
    double *a = malloc(sizeof(double) * (size_t)(row * row));
    double *b = malloc(sizeof(double) * (size_t)(row * row));
    if (!a || !b)
        return 2;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < row; i++)
        for (long j = 0; j < row; j++)
            a[i * row + j] = b[i * row + j] = (i == 0) ? 1.0 : 0.0;

    double start = omp_get_wtime();
    for (long it = 1; it <= iterations; it++) {
#pragma omp parallel for schedule(static)
        for (long i = 1; i <= n; i++)
            for (long j = 1; j <= n; j++)
                b[i * row + j] = 0.25 * (a[(i - 1) * row + j] +
                                         a[(i + 1) * row + j] +
                                         a[i * row + j - 1] +
                                         a[i * row + j + 1]);
        double *swap = a;
        a = b;
        b = swap;
        if (it % SAMPLE_EVERY == 0)
            sample(it, iterations);
    }
    double seconds = omp_get_wtime() - start;

    int nodes = kmp_get_num_processes(), grew = 0;
    for (int node = 0; node < nodes && node < MAX_NODES; node++) {
        double growth = 100.0 * (double)(rss_last_max[node] -
                                         rss_after_first[node]) /
                        (double)rss_after_first[node];
        printf("figure: node %d resident %ld KiB after %d iterations, at most "
               "%ld KiB in the last %d of %ld: growth %.2f%%\n", node,
               rss_after_first[node], WINDOW, rss_last_max[node], WINDOW,
               iterations, growth);
        grew |= growth >= 5.0 || rss_after_first[node] <= 0;
    }
    printf("figure: %ld iterations of %ldx%ld on %d nodes in %.1f s "
           "(centre value %.6f)\n", iterations, n, n, nodes, seconds,
           a[(n / 2) * row + n / 2]);
    free(a);
    free(b);
    return grew ? 1 : 0;
}
