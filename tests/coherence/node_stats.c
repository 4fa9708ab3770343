/*
 * node_stats.c - a small two-node exchange whose statistics test_stats
 * checks: node 0 allocates and writes pages, node 1 reads them, writes one
 * of them (a diff to node 0) and both meet in barriers.
 */
#include <stdio.h>

#include "dsm.h"

static DSM_SHARABLE long *g_data;

int main(void)
{
    if (dsm_init() != DSM_OK)
        return 1;
    int rank = dsm_node_id();
    if (rank == 0) {
        g_data = dsm_calloc(4 * 4096 / sizeof(long), sizeof(long));
        for (int i = 0; i < 4 * 512; i++)
            g_data[i] = i;
    }
    dsm_barrier();
    long sum = 0;
    if (rank == 1) {
        for (int i = 0; i < 4 * 512; i++)
            sum += g_data[i];
        g_data[3] = -1;
    }
    dsm_barrier();
    int ok = rank != 1 || sum == 4L * 512 * (4 * 512 - 1) / 2;
    ok = ok && g_data[3] == -1;
    dsm_finalize();
    return ok ? 0 : 1;
}
