/*
 * ex_ordered.c - the ordered clause and construct: iterations append to
 * a shared log inside ordered, so the log comes out in loop order whatever
 * the schedule (static,1; dynamic,3; guided); the work outside the ordered
 * part runs in parallel.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 300

int main(void)
{
    int *log = malloc(3 * N * sizeof *log);
    int pos = 0, errors = 0;
    unsigned long check = 0;

#pragma omp parallel for ordered schedule(static, 1)
    for (int i = 0; i < N; i++) {
        int sq = i * i % 1000;
#pragma omp ordered
        log[pos++] = sq;
    }
#pragma omp parallel for ordered schedule(dynamic, 3)
    for (int i = N - 1; i >= 0; i--) {
        int v = i * 7 % 11;
#pragma omp ordered
        {
            log[pos] = v;
            pos++;
        }
    }
#pragma omp parallel
    {
#pragma omp for ordered schedule(guided)
        for (int i = 0; i < N; i += 1) {
            int v = -i;
#pragma omp ordered
            log[pos++] = v;
        }
    }

    if (pos != 3 * N)
        errors++;
    for (int i = 0; i < N; i++) {
        if (log[i] != i * i % 1000)
            errors++;
        if (log[N + i] != (N - 1 - i) * 7 % 11)
            errors++;
        if (log[2 * N + i] != -i)
            errors++;
    }
    for (int i = 0; i < 3 * N && i < pos; i++)
        check = check * 31 + (unsigned)log[i];
    printf("result: pos %d check %lu\n", pos, check);
    if (errors)
        fprintf(stderr, "ex_ordered: %d errors\n", errors);
    free(log);
    return errors ? 1 : 0;
}
