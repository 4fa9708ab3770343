/*
 * ex_task_depend.c - task dependences: a three-stage pipeline over blocks
 * (produce with depend(out), transform with depend(inout), consume with
 * depend(in)), a fan-out / fan-in (several readers of one block, then a
 * writer that must wait for all of them), and a chain of inout tasks on
 * one variable whose order is checked by the value it builds.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 24
#define LEN 50
#define READERS 5

int main(void)
{
    double *buf = malloc(sizeof(double) * BLOCKS * LEN);
    double out[BLOCKS];
    long chain = 0;
    int readers_done = 0, readers_seen_by_writer = -1, errors = 0;
    int fan = 7;
    long reader_value[READERS];

#pragma omp parallel
#pragma omp single
    {
        for (int b = 0; b < BLOCKS; b++) {
            double *blk = buf + b * LEN;
#pragma omp task depend(out : blk[0]) firstprivate(blk, b)
            for (int i = 0; i < LEN; i++)
                blk[i] = b * 10.0 + i;
#pragma omp task depend(inout : blk[0]) firstprivate(blk)
            for (int i = 0; i < LEN; i++)
                blk[i] = blk[i] * 2 + 1;
#pragma omp task depend(in : blk[0]) firstprivate(blk, b) shared(out)
            {
                double s = 0;
                for (int i = 0; i < LEN; i++)
                    s += blk[i];
                out[b] = s;
            }
        }

        for (int r = 0; r < READERS; r++) {
#pragma omp task depend(in : fan) firstprivate(r) \
    shared(fan, reader_value, readers_done)
            {
                reader_value[r] = fan * (r + 1);
#pragma omp atomic
                readers_done++;
            }
        }
#pragma omp task depend(inout : fan) shared(fan, readers_done, \
                                            readers_seen_by_writer)
        {
            int seen;
#pragma omp atomic read
            seen = readers_done;
            readers_seen_by_writer = seen;
            fan = 100;
        }

        for (int k = 1; k <= 9; k++) {
#pragma omp task depend(inout : chain) firstprivate(k) shared(chain)
            chain = chain * 10 + k;
        }
#pragma omp taskwait
    }

    double total = 0;
    for (int b = 0; b < BLOCKS; b++) {
        double want = 0;
        for (int i = 0; i < LEN; i++)
            want += (b * 10.0 + i) * 2 + 1;
        if (out[b] != want)
            errors++;
        total += out[b];
    }
    for (int r = 0; r < READERS; r++)
        if (reader_value[r] != 7L * (r + 1))
            errors++;
    if (readers_seen_by_writer != READERS || fan != 100 ||
        chain != 123456789L)
        errors++;
    printf("result: total %.1f chain %ld fan %d readers %d\n", total, chain,
           fan, readers_seen_by_writer);
    free(buf);
    if (errors)
        fprintf(stderr, "ex_task_depend: %d errors\n", errors);
    return errors ? 1 : 0;
}
