/*
 * ex_schedule_guided.c - schedule(guided) and schedule(guided, 3): every
 * iteration runs once, and no run of consecutive iterations owned by one
 * thread is shorter than the chunk, except the last one.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static int owner[N], hits[N];
static long value[N];

static int check_runs(int chunk)
{
    int errors = 0, start = 0;
    for (int i = 1; i <= N; i++) {
        if (i == N || owner[i] != owner[start]) {
            if (i - start < chunk && i != N)
                errors++;
            start = i;
        }
    }
    return errors;
}

int main(void)
{
    int errors = 0;

#pragma omp parallel for schedule(guided)
    for (int i = 0; i < N; i++) {
        owner[i] = omp_get_thread_num();
        value[i] = (long)i * i % 97;
#pragma omp atomic
        hits[i]++;
    }
    errors += check_runs(1);

#pragma omp parallel for schedule(guided, 3)
    for (int i = 0; i < N; i++) {
        owner[i] = omp_get_thread_num();
        value[i] += i % 13;
#pragma omp atomic
        hits[i]++;
    }
    errors += check_runs(3);

    long sum = 0;
    for (int i = 0; i < N; i++) {
        if (hits[i] != 2 || value[i] != (long)i * i % 97 + i % 13)
            errors++;
        sum += value[i];
    }
    printf("result: sum %ld\n", sum);
    if (errors)
        fprintf(stderr, "ex_schedule_guided: %d errors\n", errors);
    return errors ? 1 : 0;
}
