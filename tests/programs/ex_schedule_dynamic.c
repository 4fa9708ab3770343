/*
 * ex_schedule_dynamic.c - schedule(dynamic) and schedule(dynamic, 4) on a
 * triangular loop (later iterations cost more).  Every iteration must run
 * exactly once; with a chunk of 4 each chunk is 4 consecutive iterations
 * starting at a multiple of 4 and run by one thread.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 600

int main(void)
{
    int *count = calloc(N, sizeof *count);
    int *who = malloc(N * sizeof *who);
    double *row = malloc(N * sizeof *row);
    int errors = 0;

#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < N; i++) {
        double s = 0;
        for (int j = 0; j <= i; j++)
            s += 1.0 / (1 + i + j);
        row[i] = s;
#pragma omp atomic
        count[i]++;
    }

#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < N; i++) {
        who[i] = omp_get_thread_num();
#pragma omp atomic
        count[i]++;
    }

    for (int i = 0; i < N; i++) {
        double s = 0;
        for (int j = 0; j <= i; j++)
            s += 1.0 / (1 + i + j);
        if (s != row[i])
            errors++;
        if (count[i] != 2)
            errors++;
        if (i % 4 != 0 && who[i] != who[i - 1])
            errors++;
    }
    double total = 0;
    for (int i = 0; i < N; i++)
        total += row[i];
    printf("result: total %.9f\n", total);
    if (errors)
        fprintf(stderr, "ex_schedule_dynamic: %d errors\n", errors);
    free(count);
    free(who);
    free(row);
    return errors ? 1 : 0;
}
