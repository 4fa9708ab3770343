/*
 * ex_barrier.c - a ring shift in lock step: in every step each thread
 * reads its left neighbour's slot of the previous step after a barrier
 * and writes its own slot of this step; 60 steps, two buffers.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 60
#define MAXT 256

unsigned long ring[2][MAXT];

int main(void)
{
    int nthreads = 1, errors = 0;

#pragma omp parallel
    {
        int me = omp_get_thread_num();
        int nt = omp_get_num_threads();
#pragma omp single
        nthreads = nt;
        ring[0][me] = me + 1;
#pragma omp barrier
        for (int s = 1; s <= STEPS; s++) {
            unsigned long left = ring[(s - 1) % 2][(me + nt - 1) % nt];
            ring[s % 2][me] = left * 3 + s;
#pragma omp barrier
        }
    }

    unsigned long want[MAXT], next[MAXT];
    for (int t = 0; t < nthreads; t++)
        want[t] = t + 1;
    for (int s = 1; s <= STEPS; s++) {
        for (int t = 0; t < nthreads; t++)
            next[t] = want[(t + nthreads - 1) % nthreads] * 3 + s;
        for (int t = 0; t < nthreads; t++)
            want[t] = next[t];
    }
    unsigned long check = 0;
    for (int t = 0; t < nthreads; t++) {
        if (ring[STEPS % 2][t] != want[t])
            errors++;
        check = check * 131 + ring[STEPS % 2][t];
    }
    printf("result: threads %d check %lu\n", nthreads, check);
    if (errors)
        fprintf(stderr, "ex_barrier: %d errors\n", errors);
    return errors ? 1 : 0;
}
