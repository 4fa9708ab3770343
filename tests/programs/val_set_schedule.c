/*
 * val_set_schedule.c - omp_set_schedule / omp_get_schedule round trips,
 * as conformance suites check them, each followed by a schedule(runtime)
 * loop: (dynamic, 0) (a chunk below 1 selects the default),
 * (dynamic | monotonic, 5), (guided, 4), (static, 6).  The values must be
 * the same in every thread of the next team (the ICV is inherited).
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 500

static int hits[N];

static int run_case(omp_sched_t set_kind, int set_chunk)
{
    int errors = 0;
    omp_sched_t kind;
    int chunk;

    omp_set_schedule(set_kind, set_chunk);
    omp_get_schedule(&kind, &chunk);
    printf("result: set (%#x, %d) got (%#x, %d)\n", (unsigned)set_kind,
           set_chunk, (unsigned)kind, chunk);
    if (kind != set_kind)
        errors++;
    if (set_chunk >= 1 && chunk != set_chunk)
        errors++;
    if (set_chunk < 1 && chunk < 0)
        errors++;

    for (int i = 0; i < N; i++)
        hits[i] = 0;
#pragma omp parallel reduction(+ : errors)
    {
        omp_sched_t k2;
        int c2;
        omp_get_schedule(&k2, &c2);
        if (k2 != kind || c2 != chunk)
            errors++;
#pragma omp for schedule(runtime)
        for (int i = 0; i < N; i++)
            hits[i]++;
    }
    for (int i = 0; i < N; i++)
        if (hits[i] != 1)
            errors++;
    return errors;
}

int main(void)
{
    int errors = 0;
    errors += run_case(omp_sched_dynamic, 0);
    errors += run_case((omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic),
                       5);
    errors += run_case(omp_sched_guided, 4);
    errors += run_case(omp_sched_static, 6);
    if (errors)
        fprintf(stderr, "val_set_schedule: %d errors\n", errors);
    return errors ? 1 : 0;
}
