/*
 * ex_collapse.c - collapse(2) and collapse(3) loop nests with static and
 * dynamic schedules and lastprivate of the loop variables, on a matrix
 * from malloc and a global 3-D array.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define NI 37
#define NJ 23
#define NK 11

static double cube[NI][NJ][NK];

int main(void)
{
    double *m = malloc(sizeof(double) * NI * NJ);
    int i, j, k, errors = 0;
    int li = -1, lj = -1;

#pragma omp parallel for collapse(2) lastprivate(i, j) schedule(static)
    for (i = 0; i < NI; i++)
        for (j = 0; j < NJ; j++)
            m[i * NJ + j] = i * 100.0 + j;
    li = i;
    lj = j;
    if (li != NI || lj != NJ)
        errors++;

#pragma omp parallel for collapse(3) schedule(dynamic, 5) private(i, j, k)
    for (i = 0; i < NI; i++)
        for (j = 0; j < NJ; j++)
            for (k = 0; k < NK; k++)
                cube[i][j][k] = m[i * NJ + j] * 0.5 + k;

    /* a non-unit stride and a decreasing inner loop under collapse */
    long strided = 0;
#pragma omp parallel for collapse(2) reduction(+ : strided) schedule(guided)
    for (int a = 3; a < 90; a += 4)
        for (int b = 50; b > 0; b -= 3)
            strided += (long)a * b;

    long want_strided = 0;
    for (int a = 3; a < 90; a += 4)
        for (int b = 50; b > 0; b -= 3)
            want_strided += (long)a * b;
    if (strided != want_strided)
        errors++;

    double sum = 0;
    for (i = 0; i < NI; i++)
        for (j = 0; j < NJ; j++)
            for (k = 0; k < NK; k++) {
                double want = (i * 100.0 + j) * 0.5 + k;
                if (cube[i][j][k] != want)
                    errors++;
                sum += cube[i][j][k];
            }
    printf("result: last %d %d strided %ld sum %.1f\n", li, lj, strided, sum);
    if (errors)
        fprintf(stderr, "ex_collapse: %d errors\n", errors);
    free(m);
    return errors ? 1 : 0;
}
