/*
 * ex_parallel_for.c - the first example anyone writes: a parallel for
 * over arrays from malloc, with private, firstprivate and shared locals of
 * main, then a parallel region whose threads each fill their own block.
 *
 * Corpus program (tests/programs): checks itself against a serial
 * computation and exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 20000

int main(void)
{
    double *a = malloc(N * sizeof *a);
    double *b = malloc(N * sizeof *b);
    double *c = malloc(N * sizeof *c);
    double scale = 2.5;
    int i, errors = 0;
    double tmp;

    for (i = 0; i < N; i++) {
        b[i] = i * 0.5;
        c[i] = (i % 7) - 3.0;
    }

#pragma omp parallel for private(tmp) firstprivate(scale)
    for (i = 0; i < N; i++) {
        tmp = b[i] * scale;
        a[i] = tmp + c[i];
    }

    for (i = 0; i < N; i++)
        if (a[i] != b[i] * 2.5 + c[i])
            errors++;

    /* every thread fills the block it computes from its number */
    int nthreads = 0;
    int *owner = malloc(N * sizeof *owner);
#pragma omp parallel shared(nthreads, owner)
    {
        int id = omp_get_thread_num();
        int nt = omp_get_num_threads();
        int lo = (int)((long)N * id / nt), hi = (int)((long)N * (id + 1) / nt);
        if (id == 0)
            nthreads = nt;
        for (int k = lo; k < hi; k++)
            owner[k] = id;
    }
    for (i = 0; i < N; i++)
        if (owner[i] < 0 || owner[i] >= nthreads ||
            (long)N * owner[i] / nthreads > i ||
            (long)N * (owner[i] + 1) / nthreads <= i)
            errors++;

    double sum = 0.0;
    for (i = 0; i < N; i++)
        sum += a[i];
    printf("result: threads %d\n", nthreads);
    printf("result: sum %.3f\n", sum);
    if (errors)
        fprintf(stderr, "ex_parallel_for: %d wrong elements\n", errors);
    free(a);
    free(b);
    free(c);
    free(owner);
    return errors ? 1 : 0;
}
