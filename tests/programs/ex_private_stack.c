/*
 * ex_private_stack.c - several MiB of private data per thread on its
 * stack: a local array in the region's body (each thread its own), as
 * solvers keep per-thread work arrays.  Under libomp and libgomp a thread
 * gets the usual 8 MiB stack; 5.6 MB must fit (programs corpus).
 */
#include <omp.h>
#include <stdio.h>

#define WORK 700000   /* doubles: 5.6 MB */

static double fill_and_sum(int seed)
{
    double work[WORK];
    for (int i = 0; i < WORK; i++)
        work[i] = (double)((i * 7 + seed) % 1000);
    double sum = 0.0;
    for (int i = WORK - 1; i >= 0; i -= 3)
        sum += work[i];
    return sum;
}

int main(void)
{
    double total = 0.0;
#pragma omp parallel for reduction(+ : total) schedule(static, 1)
    for (int k = 0; k < 8; k++)
        total += fill_and_sum(k);
    printf("result: private work arrays summed %.0f\n", total);
    return 0;
}
