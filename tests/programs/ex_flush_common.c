/*
 * ex_flush_common.c - producer and consumer the way much existing code
 * writes it: plain int flags, the writer does "data; flush; flag = 1;
 * flush", the reader spins with "while (!seen) { flush; seen = flag; }"
 * and reads the data right after the loop.  Every thread but the first
 * consumes a stream of 12 blocks from its own producer slot (thread 0
 * produces for everyone), and acknowledges each block the same way.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 12
#define LEN 64
#define MAXT 64

long block[MAXT][LEN];
int ready[MAXT], done[MAXT];
long got[MAXT][BLOCKS];

int main(void)
{
    int errors = 0, nthreads = 1;

#pragma omp parallel
    {
        int me = omp_get_thread_num();
        int nt = omp_get_num_threads();
        if (me == 0)
            nthreads = nt;
        if (me == 0) {
            for (int b = 1; b <= BLOCKS; b++) {
                for (int c = 1; c < nt; c++) {
                    for (int i = 0; i < LEN; i++)
                        block[c][i] = (long)b * 100000 + c * 1000 + i;
#pragma omp flush
                    ready[c] = b;
#pragma omp flush
                }
                for (int c = 1; c < nt; c++) {
                    int seen = 0;
                    while (seen != b) {
#pragma omp flush
                        seen = done[c];
                    }
                }
            }
        } else {
            for (int b = 1; b <= BLOCKS; b++) {
                int seen = 0;
                while (seen != b) {
#pragma omp flush
                    seen = ready[me];
                }
                long s = 0;
                for (int i = 0; i < LEN; i++)
                    s += block[me][i];
                got[me][b - 1] = s;
                done[me] = b;
#pragma omp flush
            }
        }
    }

    long total = 0;
    for (int c = 1; c < nthreads; c++)
        for (int b = 1; b <= BLOCKS; b++) {
            long want = 0;
            for (int i = 0; i < LEN; i++)
                want += (long)b * 100000 + c * 1000 + i;
            if (got[c][b - 1] != want)
                errors++;
            total += got[c][b - 1];
        }
    printf("result: consumers %d total %ld\n", nthreads - 1, total);
    if (errors)
        fprintf(stderr, "ex_flush_common: %d blocks read stale data\n",
                errors);
    return errors ? 1 : 0;
}
