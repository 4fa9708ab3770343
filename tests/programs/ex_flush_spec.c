/*
 * ex_flush_spec.c - producer and consumer synchronised through a flag,
 * written the way the specification's memory-model examples say it must
 * be: the producer writes the data, flushes, and sets the flag with an
 * atomic write; the consumer spins on an atomic read of the flag and
 * flushes after the loop before it reads the data.  20 rounds, the flag
 * carrying the round number, the reply going back the same way.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 20
#define LEN 256

double data[LEN];
int flag, ack;
double received[ROUNDS];

int main(void)
{
    int errors = 0, nthreads = 1;

#pragma omp parallel shared(nthreads)
    {
        int me = omp_get_thread_num();
        int nt = omp_get_num_threads();
#pragma omp single
        nthreads = nt;
        int consumer = nt - 1;
        if (nt > 1 && me == 0) {
            for (int r = 1; r <= ROUNDS; r++) {
                for (int i = 0; i < LEN; i++)
                    data[i] = r * 1000.0 + i;
#pragma omp flush
#pragma omp atomic write
                flag = r;
                /* wait for the consumer's acknowledgement */
                int a;
                do {
#pragma omp atomic read
                    a = ack;
                } while (a != r);
#pragma omp flush
            }
        } else if (nt > 1 && me == consumer) {
            for (int r = 1; r <= ROUNDS; r++) {
                int f;
                do {
#pragma omp atomic read
                    f = flag;
                } while (f != r);
#pragma omp flush
                double s = 0;
                for (int i = 0; i < LEN; i++)
                    s += data[i];
                received[r - 1] = s;
#pragma omp flush
#pragma omp atomic write
                ack = r;
            }
        }
    }

    double total = 0;
    if (nthreads > 1) {
        for (int r = 1; r <= ROUNDS; r++) {
            double want = 0;
            for (int i = 0; i < LEN; i++)
                want += r * 1000.0 + i;
            if (received[r - 1] != want)
                errors++;
            total += received[r - 1];
        }
    }
    printf("result: rounds %d total %.1f\n", nthreads > 1 ? ROUNDS : 0,
           total);
    if (errors)
        fprintf(stderr, "ex_flush_spec: %d rounds read stale data\n", errors);
    return errors ? 1 : 0;
}
