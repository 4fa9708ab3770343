/*
 * ex_taskgroup.c - taskgroup waits for the tasks created in it and all
 * their descendants (unlike taskwait, which waits only for children): a
 * tree of nested tasks counts its nodes inside a taskgroup, and the count
 * must be complete when the group ends; every thread then runs its own
 * taskgroup.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 256

static int visited;

static void spawn(int depth)
{
#pragma omp atomic
    visited++;
    if (depth == 0)
        return;
    for (int c = 0; c < 3; c++) {
#pragma omp task firstprivate(depth)
        spawn(depth - 1);
    }
    /* no taskwait: the group waits for the grandchildren */
}

static long per_thread[MAXT];

int main(void)
{
    int errors = 0, at_end = -1, nthreads = 1;

#pragma omp parallel
    {
#pragma omp single
        {
            nthreads = omp_get_num_threads();
#pragma omp taskgroup
            {
                spawn(5);
            }
#pragma omp atomic read
            at_end = visited;
        }
        int me = omp_get_thread_num();
#pragma omp taskgroup
        {
            for (int k = 1; k <= 10; k++) {
#pragma omp task firstprivate(k, me)
                {
#pragma omp task firstprivate(k, me)
                    {
#pragma omp atomic
                        per_thread[me] += k;
                    }
                }
            }
        }
        if (per_thread[me] != 55) {
#pragma omp atomic
            errors++;
        }
    }

    /* 1 + 3 + 9 + ... + 3^5 */
    int want = 0, p = 1;
    for (int d = 0; d <= 5; d++, p *= 3)
        want += p;
    if (at_end != want)
        errors++;
    long sum = 0;
    for (int t = 0; t < nthreads; t++)
        sum += per_thread[t];
    if (sum != 55L * nthreads)
        errors++;
    printf("result: visited %d per-thread sum %ld\n", at_end, sum);
    if (errors)
        fprintf(stderr, "ex_taskgroup: %d errors (want %d)\n", errors, want);
    return errors ? 1 : 0;
}
