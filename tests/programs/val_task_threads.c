/*
 * val_task_threads.c - a conformance-suite check that explicit tasks are
 * really executed by the team, not only by the thread that creates them:
 * one thread creates tasks that each wait (up to 2 s, once) until tasks
 * have been seen on at least two different threads, while the other threads
 * wait at the barrier, where they must pick tasks up.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define TASKS 16
#define MAXT 256

static int ran_on[MAXT];
static int distinct;

static void note_thread(void)
{
    int me = omp_get_thread_num();
    int first;
#pragma omp atomic capture
    first = ran_on[me]++;
    if (first == 0) {
#pragma omp atomic
        distinct++;
    }
}

int main(void)
{
    int errors = 0, nthreads = 1, timed_out = 0;

#pragma omp parallel
    {
#pragma omp single
        {
            nthreads = omp_get_num_threads();
            for (int t = 0; t < TASKS; t++) {
#pragma omp task shared(timed_out)
                {
                    note_thread();
                    double start = omp_get_wtime();
                    int d, gave_up;
                    do {
#pragma omp atomic read
                        d = distinct;
#pragma omp atomic read
                        gave_up = timed_out;
                    } while (d < 2 && !gave_up && omp_get_num_threads() > 1 &&
                             omp_get_wtime() - start < 2.0);
                    if (d < 2 && omp_get_num_threads() > 1) {
#pragma omp atomic write
                        timed_out = 1;
                    }
                }
            }
        }
    }
    int used = 0;
    for (int t = 0; t < MAXT; t++)
        used += ran_on[t] > 0;
    int several = used >= 2;
    if (nthreads > 1 && (!several || timed_out))
        errors++;
    printf("result: tasks of one creator ran on several threads: %s\n",
           nthreads > 1 ? (several ? "yes" : "no") : "n/a");
    if (errors)
        fprintf(stderr, "val_task_threads: %d tasks, all on %d thread(s)\n",
                TASKS, used);
    return errors ? 1 : 0;
}
