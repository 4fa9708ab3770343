/*
 * ex_doacross.c - doacross loops (ordered(n) with depend(sink) and
 * depend(source)): a 1-D recurrence where iteration i waits for i-1, and
 * a 2-D wavefront where (i, j) waits for (i-1, j) and (i, j-1), each
 * against the serial recurrence (bit-identical: the dependences fix the
 * order of every update).
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 400
#define NI 40
#define NJ 30

static double grid[NI][NJ], want_grid[NI][NJ];

int main(void)
{
    double *a = malloc(N * sizeof *a), *want = malloc(N * sizeof *want);
    int errors = 0;

    a[0] = want[0] = 1.0;
#pragma omp parallel for ordered(1) schedule(static, 4)
    for (int i = 1; i < N; i++) {
        double local = (i % 17) * 0.25;       /* independent work */
#pragma omp ordered depend(sink : i - 1)
        a[i] = a[i - 1] * 0.75 + local;
#pragma omp ordered depend(source)
    }
    for (int i = 1; i < N; i++)
        want[i] = want[i - 1] * 0.75 + (i % 17) * 0.25;

    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            grid[i][j] = want_grid[i][j] = (i == 0 || j == 0) ? i + j : 0;
#pragma omp parallel for ordered(2) schedule(static, 1)
    for (int i = 1; i < NI; i++)
        for (int j = 1; j < NJ; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            grid[i][j] = 0.5 * (grid[i - 1][j] + grid[i][j - 1]) + 1;
#pragma omp ordered depend(source)
        }
    for (int i = 1; i < NI; i++)
        for (int j = 1; j < NJ; j++)
            want_grid[i][j] =
                0.5 * (want_grid[i - 1][j] + want_grid[i][j - 1]) + 1;

    double s1 = 0, s2 = 0;
    for (int i = 0; i < N; i++) {
        if (a[i] != want[i])
            errors++;
        s1 += a[i];
    }
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++) {
            if (grid[i][j] != want_grid[i][j])
                errors++;
            s2 += grid[i][j];
        }
    printf("result: recurrence %.10f wavefront %.10f\n", s1, s2);
    free(a);
    free(want);
    if (errors)
        fprintf(stderr, "ex_doacross: %d errors\n", errors);
    return errors ? 1 : 0;
}
