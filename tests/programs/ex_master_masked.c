/*
 * ex_master_masked.c - master (thread 0 only, no barrier), masked
 * (thread 0) and masked filter(1) (thread 1), each counting who ran it;
 * an explicit barrier makes the master's write visible to the team.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int master_runs = 0, masked_runs = 0, filter_runs = 0;
    int master_id = -1, filter_id = -1, errors = 0, nthreads = 1;
    double shared_value = 0;

#pragma omp parallel reduction(+ : errors)
    {
#pragma omp master
        {
            master_runs++;
            master_id = omp_get_thread_num();
            shared_value = 42.5;
            nthreads = omp_get_num_threads();
        }
#pragma omp barrier
        if (shared_value != 42.5)
            errors++;
#pragma omp masked
        {
#pragma omp atomic
            masked_runs++;
        }
#pragma omp masked filter(1)
        {
#pragma omp atomic
            filter_runs++;
            filter_id = omp_get_thread_num();
        }
    }
    if (master_runs != 1 || master_id != 0 || masked_runs != 1)
        errors++;
    if (nthreads > 1 && (filter_runs != 1 || filter_id != 1))
        errors++;
    printf("result: master %d masked %d filter %d (thread %d)\n",
           master_runs, masked_runs, filter_runs, filter_id);
    if (errors)
        fprintf(stderr, "ex_master_masked: %d errors\n", errors);
    return errors ? 1 : 0;
}
