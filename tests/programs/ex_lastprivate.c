/*
 * ex_lastprivate.c - lastprivate on a loop (the value of the sequentially
 * last iteration), on sections (the lexically last section), together
 * with firstprivate on the same variable, and lastprivate(conditional:)
 * (the value of the last iteration that assigned it).  (Not with a
 * dynamic schedule: clang 14 and its libomp lose the last flag of a
 * dynamic loop now and then, as LLVM issue 61230 shows for linear.)
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1001

int main(void)
{
    int *v = malloc(N * sizeof *v);
    int errors = 0;
    int x = -1, y = 10, last_big = -1;
    double d = 0;

    for (int i = 0; i < N; i++)
        v[i] = (i * 37) % 101;

#pragma omp parallel for lastprivate(x, d) schedule(static, 3)
    for (int i = 0; i < N; i++) {
        x = v[i] * 2;
        d = i / 4.0;
    }
    if (x != v[N - 1] * 2 || d != (N - 1) / 4.0)
        errors++;

    /* firstprivate and lastprivate: each thread starts from 10 */
#pragma omp parallel for firstprivate(y) lastprivate(y)
    for (int i = 0; i < N; i++)
        y = (y == 10 || y > 0) ? i + 10 : -1;
    if (y != N - 1 + 10)
        errors++;

    int s = 0;
#pragma omp parallel sections lastprivate(s)
    {
#pragma omp section
        s = 1;
#pragma omp section
        s = 2;
#pragma omp section
        s = 3;
    }
    if (s != 3)
        errors++;

    /* the last i (in sequential order) with v[i] > 95 */
#pragma omp parallel for lastprivate(conditional : last_big)
    for (int i = 0; i < N; i++)
        if (v[i] > 95)
            last_big = i;
    int want = -1;
    for (int i = 0; i < N; i++)
        if (v[i] > 95)
            want = i;
    if (last_big != want)
        errors++;

    printf("result: x %d d %.2f y %d s %d last_big %d\n", x, d, y, s,
           last_big);
    if (errors)
        fprintf(stderr, "ex_lastprivate: %d errors\n", errors);
    free(v);
    return errors ? 1 : 0;
}
