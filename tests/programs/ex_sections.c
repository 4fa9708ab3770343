/*
 * ex_sections.c - five independent sections, each filling its own array,
 * with private, firstprivate and reduction clauses, then a sections
 * construct with nowait inside a region followed by a barrier.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 400

static double part[5][N];
static int runs[5];

static void fill(int which, double base)
{
    for (int i = 0; i < N; i++)
        part[which][i] = base + which * 1000 + i;
#pragma omp atomic
    runs[which]++;
}

int main(void)
{
    double base = 0.5;
    int errors = 0;
    long total = 0;

#pragma omp parallel sections firstprivate(base) reduction(+ : total)
    {
#pragma omp section
        { fill(0, base); total += 1; }
#pragma omp section
        { fill(1, base); total += 10; }
#pragma omp section
        { fill(2, base); total += 100; }
#pragma omp section
        { fill(3, base); total += 1000; }
#pragma omp section
        { fill(4, base); total += 10000; }
    }

    double sums[2] = {0, 0};
#pragma omp parallel shared(sums)
    {
#pragma omp sections nowait
        {
#pragma omp section
            {
                double s = 0;
                for (int i = 0; i < N; i++)
                    s += part[0][i] + part[1][i];
                sums[0] = s;
            }
#pragma omp section
            {
                double s = 0;
                for (int i = 0; i < N; i++)
                    s += part[2][i] + part[3][i] + part[4][i];
                sums[1] = s;
            }
        }
#pragma omp barrier
    }

    double want0 = 0, want1 = 0;
    for (int w = 0; w < 5; w++) {
        if (runs[w] != 1)
            errors++;
        for (int i = 0; i < N; i++) {
            double v = 0.5 + w * 1000 + i;
            if (part[w][i] != v)
                errors++;
        }
    }
    for (int i = 0; i < N; i++) {
        want0 += part[0][i] + part[1][i];
        want1 += part[2][i] + part[3][i] + part[4][i];
    }
    if (total != 11111 || sums[0] != want0 || sums[1] != want1)
        errors++;
    printf("result: total %ld sums %.1f %.1f\n", total, sums[0], sums[1]);
    if (errors)
        fprintf(stderr, "ex_sections: %d errors\n", errors);
    return errors ? 1 : 0;
}
