/*
 * ex_schedule_static.c - schedule(static) and schedule(static, chunk).
 * With a chunk the specification fixes the assignment: chunks go to the
 * threads round-robin in thread order.  Without one each thread gets at
 * most one contiguous block, in thread order.  Both are checked, and the
 * ownership pattern of the chunked loop is printed (it depends only on the
 * team size).
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000
#define CHUNK 7

int owner_block[N], owner_chunk[N];
double x[N];

int main(void)
{
    int nthreads = 1, errors = 0;

#pragma omp parallel
    {
#pragma omp single
        nthreads = omp_get_num_threads();
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++)
            owner_block[i] = omp_get_thread_num();
#pragma omp for schedule(static, CHUNK)
        for (int i = 0; i < N; i++) {
            owner_chunk[i] = omp_get_thread_num();
            x[i] = i * 0.25;
        }
    }

    /* blocks: non-decreasing owners, every owner valid */
    for (int i = 0; i < N; i++) {
        if (owner_block[i] < 0 || owner_block[i] >= nthreads)
            errors++;
        if (i > 0 && owner_block[i] < owner_block[i - 1])
            errors++;
    }
    /* chunks: round robin */
    for (int i = 0; i < N; i++)
        if (owner_chunk[i] != (i / CHUNK) % nthreads)
            errors++;

    long pattern = 0;
    for (int i = 0; i < N; i++)
        pattern = (pattern * 31 + owner_chunk[i]) % 1000000007L;
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += x[i];
    printf("result: threads %d chunk pattern %ld\n", nthreads, pattern);
    printf("result: sum %.2f\n", sum);
    if (errors)
        fprintf(stderr, "ex_schedule_static: %d errors\n", errors);
    return errors ? 1 : 0;
}
