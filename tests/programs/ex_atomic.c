/*
 * ex_atomic.c - atomic update, read and write on int, long, float and
 * double counters, with the memory-order clauses seq_cst, acq_rel (on a
 * capture), release, acquire and relaxed; every thread adds to shared counters in a
 * loop and the totals must be exact.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4000

int icount, icount2;
long lsum;
double dsum;
float fsum;
unsigned bits;

int main(void)
{
    int errors = 0, reads_ok = 1, published = 0, value = 0;

#pragma omp parallel for
    for (int i = 0; i < N; i++) {
#pragma omp atomic
        icount++;
#pragma omp atomic update seq_cst
        lsum += i;
#pragma omp atomic release
        dsum += 0.5;
        int before;
#pragma omp atomic capture acq_rel
        before = icount2++;
        (void)before;
#pragma omp atomic relaxed
        fsum += 1.0f;
#pragma omp atomic
        bits |= 1u << (i % 32);
    }

    /* write and read with release / acquire */
#pragma omp parallel shared(value, published) reduction(&& : reads_ok)
    {
#pragma omp single
        {
#pragma omp atomic write relaxed
            value = 1234;
#pragma omp atomic write release
            published = 1;
        }
        int p, v;
#pragma omp atomic read acquire
        p = published;
#pragma omp atomic read relaxed
        v = value;
        reads_ok = (p == 1 && v == 1234);
    }

    if (icount != N || lsum != (long)N * (N - 1) / 2 || dsum != N * 0.5 ||
        fsum != (float)N || icount2 != N || bits != 0xffffffffu || !reads_ok)
        errors++;
    printf("result: %d %ld %.1f %.1f %#x %d\n", icount, lsum, dsum,
           (double)fsum, bits, reads_ok);
    if (errors)
        fprintf(stderr, "ex_atomic: wrong totals\n");
    return errors ? 1 : 0;
}
