/*
 * report_false_sharing.c - false sharing across nodes, for the sharing
 * report's tests.  In every phase each thread counts into its own element
 * of a global array and of a heap array, and enters a critical section
 * (whose lock hands a node the other nodes' writes, so the arrays' pages
 * travel although no two threads share an element); a barrier ends the
 * phase, so every node writes both pages between the same barriers.  The
 * report must name `hits' and the heap array, by the line of its calloc
 * (marked "the heap array"), both as false sharing.  Checks its sums.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define PHASES 150
#define WRITES 8
#define MAX_THREADS 64

long hits[MAX_THREADS];                      /* one element per thread */
static long entered __attribute__((aligned(4096)));  /* alone in its page */

int main(void)
{
    int n = omp_get_max_threads();
    if (n > MAX_THREADS)
        return 2;
    long *partial = calloc(MAX_THREADS, sizeof *partial); /* the heap array */
    if (!partial)
        return 2;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        for (int phase = 0; phase < PHASES; phase++) {
            for (int k = 0; k < WRITES; k++) {
                hits[t]++;
                partial[t] += k;
                if (k % 4 == 0) {
#pragma omp critical
                    entered++;
                }
            }
#pragma omp barrier
        }
    }
    long count = 0, sum = 0;
    for (int t = 0; t < n; t++) {
        count += hits[t];
        sum += partial[t];
    }
    printf("result: hits %ld sum %ld entered %ld\n", count, sum, entered);
    free(partial);
    long runs = (long)n * PHASES;
    return count == runs * WRITES &&
                   sum == runs * (WRITES * (WRITES - 1) / 2) &&
                   entered == runs * ((WRITES + 3) / 4)
               ? 0 : 1;
}
