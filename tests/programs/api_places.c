/*
 * api_places.c - the thread-affinity queries: omp_get_num_places,
 * omp_get_place_num (-1 when not bound, else a valid place),
 * omp_get_place_num_procs and omp_get_place_proc_ids,
 * omp_get_partition_num_places and omp_get_partition_place_nums,
 * omp_get_proc_bind, and omp_display_env (it prints the ICVs on stderr).
 * Only consistency is checked: the places themselves depend on the
 * machine and the runtime.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int errors = 0;
    int nplaces = omp_get_num_places();

    if (nplaces < 0)
        errors++;
    for (int p = 0; p < nplaces; p++) {
        int nprocs = omp_get_place_num_procs(p);
        if (nprocs <= 0)
            errors++;
        int *ids = malloc((nprocs > 0 ? nprocs : 1) * sizeof *ids);
        omp_get_place_proc_ids(p, ids);
        for (int k = 0; k < nprocs; k++)
            if (ids[k] < 0)
                errors++;
        free(ids);
    }
    omp_proc_bind_t bind = omp_get_proc_bind();
    if (bind != omp_proc_bind_false && bind != omp_proc_bind_true &&
        bind != omp_proc_bind_master && bind != omp_proc_bind_close &&
        bind != omp_proc_bind_spread)
        errors++;

#pragma omp parallel reduction(+ : errors)
    {
        int place = omp_get_place_num();
        if (place < -1 || place >= nplaces)
            errors++;
        int part = omp_get_partition_num_places();
        if (part < 0 || part > nplaces)
            errors++;
        int *nums = malloc((part > 0 ? part : 1) * sizeof *nums);
        omp_get_partition_place_nums(nums);
        for (int k = 0; k < part; k++)
            if (nums[k] < 0 || nums[k] >= nplaces)
                errors++;
        free(nums);
    }

    fflush(stdout);
    omp_display_env(0);
    printf("result: places consistent %d\n", errors == 0);
    if (errors)
        fprintf(stderr, "api_places: %d errors\n", errors);
    return errors ? 1 : 0;
}
