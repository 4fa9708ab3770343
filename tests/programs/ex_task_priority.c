/*
 * ex_task_priority.c - the priority clause (a hint: any order is
 * correct), with priorities computed per task and bounded by
 * omp_get_max_task_priority(); a work list of tasks of unequal cost where
 * the expensive ones get the higher priority.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define TASKS 120

static long cost(int i)
{
    long s = 0;
    for (int k = 0; k < (i % 10) * 300; k++)
        s += k % 17;
    return s;
}

int main(void)
{
    long *res = malloc(TASKS * sizeof *res);
    int errors = 0;
    int maxprio = omp_get_max_task_priority();

    if (maxprio < 0)
        errors++;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < TASKS; i++) {
            int prio = (i % 10) * (maxprio + 1) / 10;
#pragma omp task priority(prio) firstprivate(i)
            res[i] = cost(i);
        }
#pragma omp taskwait
    }

    long total = 0;
    for (int i = 0; i < TASKS; i++) {
        if (res[i] != cost(i))
            errors++;
        total += res[i];
    }
    printf("result: total %ld\n", total);
    free(res);
    if (errors)
        fprintf(stderr, "ex_task_priority: %d errors\n", errors);
    return errors ? 1 : 0;
}
