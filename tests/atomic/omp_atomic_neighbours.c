/*
 * omp_atomic_neighbours.c - 1 and 2-byte atomics share their 4- or 8-byte
 * word with other variables: an atomic must leave its neighbours alone,
 * both the neighbours other threads update atomically at the same time
 * and the ones this thread wrote plainly and has not published yet (the
 * barrier at the end of the region publishes them).
 *
 * Test program: compiled by dsmcc (the dsm-atomic plug-in); run under
 * dsmrun on 2 nodes, where the writing thread is on a node that is not the
 * home of the globals.  Exit status 0 when every check held.
 */
#include <omp.h>

#include "atomic_expect.h"
#include "dsm.h"

#define K 200

static char bytes[8];
static short halves[4];
static unsigned char per_thread[64];
static int nthreads;

int main(void)
{
#pragma omp parallel
    {
        int me = omp_get_thread_num();
#pragma omp master
        nthreads = omp_get_num_threads();
        /* the last thread is on the last node */
        if (me == omp_get_num_threads() - 1) {
            bytes[1] = 7;
            bytes[2] = 9;
            halves[1] = 5;
#pragma omp atomic
            bytes[0] += 1;
#pragma omp atomic
            halves[0] += 2;
            bytes[3] = 11;
        }
        /* every thread its own byte, neighbours updated at the same time */
        for (int k = 0; k < K && me < 64; k++) {
#pragma omp atomic
            per_thread[me] += 1;
        }
    }
    expect_long("atomic byte", bytes[0], 1);
    expect_long("plain byte before the atomic", bytes[1], 7);
    expect_long("second plain byte before the atomic", bytes[2], 9);
    expect_long("plain byte after the atomic", bytes[3], 11);
    expect_long("atomic short", halves[0], 2);
    expect_long("plain short before the atomic", halves[1], 5);
    for (int t = 0; t < nthreads && t < 64; t++)
        expect_long("a thread's own atomic byte", per_thread[t], K);
    expect_true("the team has more than one thread", nthreads > 1);
    printf("omp_atomic_neighbours: %d threads on %d nodes\n", nthreads, dsm_num_nodes());
    return expect_status("omp_atomic_neighbours");
}
