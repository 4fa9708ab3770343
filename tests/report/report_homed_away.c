/*
 * report_homed_away.c - an array kept at one node and written by another,
 * for the sharing report's tests: the master allocates and initialises
 * `grid' (so node 0 holds it), then in every phase only the last node's
 * threads write it.  Without home migration (DSM_MIGRATE_AFTER=0) every
 * phase costs twins and diffs sent to node 0: the report must name the
 * allocation (marked "the grid") as homed away from its writer.
 */
#include <kmp_cluster.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define PHASES 60
#define PAGES 8
#define N (PAGES * 4096 / (int)sizeof(double))

int main(void)
{
    double *grid = malloc(N * sizeof *grid);    /* the grid */
    if (!grid)
        return 2;
    for (int i = 0; i < N; i++)
        grid[i] = 0;
#pragma omp parallel
    {
        int writer = kmp_get_process_num() == kmp_get_num_processes() - 1;
        int per_node = omp_get_num_threads() / kmp_get_num_processes();
        int me = kmp_get_process_thread_num();
        for (int phase = 0; phase < PHASES; phase++) {
            if (writer)
                for (int i = me; i < N; i += per_node)
                    grid[i] += 1;
#pragma omp barrier
        }
    }
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= grid[i] == PHASES;
    printf("result: %s\n", ok ? "ok" : "wrong");
    free(grid);
    return ok ? 0 : 1;
}
