/*
 * omp_prefetch.c - pages a loop fetched from other nodes the last time it
 * ran are fetched in bulk when it runs again (coh_prefetch.c), and such
 * early copies never hide a later write:
 *   transpose   each step, a row sweep (every thread writes its rows) and
 *               a column sweep (every thread reads all rows of its
 *               columns: one page of every row from the other nodes),
 *               separated by barriers; every value checked;
 *   handoff     after a barrier whose code read a block last time (so the
 *               block is prefetched at that barrier), the first thread
 *               rewrites the block inside a critical section and the last
 *               thread reads it inside the same critical section after
 *               it: the lock's acquire must drop the prefetched copy.
 * OMP_PREFETCH_COUNTED=1: in the steady phase of the transpose, every
 * node with other nodes' rows to read had its pages prefetched and used
 * (DSM statistics; run where homes are not mapped: DSM_SAME_HOST_MAP=0 or
 * across hosts, and without DSM_PREFETCH=0).
 *
 * Test program (dsmcc, dsmrun; cross-checked with libomp).
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#ifndef OMP_CHECK_LIBOMP
#include <dsm.h>
#endif

#include "omp_check.h"

#define N 512            /* rows and columns: a row is a page of longs */
#define STEPS 12
#define BLOCK 2048       /* longs: 4 pages */
#define ROUNDS 8

static long m[N][N];
static long block[BLOCK];
static long col_sum[N];

static long value(int step, int i, int j) { return step * 1000003L + i * N + j; }

int main(void)
{
    long bad = 0, steady_prefetched = 0, steady_hits = 0, steady_mapped = 0;
    int counted = getenv("OMP_PREFETCH_COUNTED") &&
                  !strcmp(getenv("OMP_PREFETCH_COUNTED"), "1");
#pragma omp parallel reduction(+ : bad)
    {
#ifndef OMP_CHECK_LIBOMP
        dsm_stats_t from, to;
#endif
        for (int s = 0; s < STEPS; s++) {
#ifndef OMP_CHECK_LIBOMP
            if (s == STEPS / 2)
                dsm_stats_get(&from);
#endif
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                for (int j = 0; j < N; j++)
                    m[i][j] = value(s, i, j);
#pragma omp for schedule(static)
            for (int j = 0; j < N; j++) {
                long sum = 0;
                for (int i = 0; i < N; i++) {
                    bad += m[i][j] != value(s, i, j);
                    sum += m[i][j];
                }
                col_sum[j] = sum;
            }
        }
#ifndef OMP_CHECK_LIBOMP
        dsm_stats_get(&to);
#pragma omp critical
        {
            long p = (long)(to.pages_prefetched - from.pages_prefetched);
            long h = (long)(to.prefetch_hits - from.prefetch_hits);
            long m = (long)(to.prefetch_mapped - from.prefetch_mapped);
            if (omp_get_thread_num() == omp_get_num_threads() - 1) {
                steady_prefetched = p;
                steady_hits = h;
                steady_mapped = m;
            }
        }
#endif
        /* handoff: the last thread reads the block after each barrier */
        int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
        for (int r = 1; r <= ROUNDS; r++) {
#pragma omp barrier
            if (me == 0) {
#pragma omp critical(handoff)
                for (int k = BLOCK - 1; k >= 0; k--)
                    block[k] = r * 7L + k;   /* block[0] last: the flag */
            }
            if (me == last) {
                long seen = 0;
                while (seen != r * 7L) {
#pragma omp critical(handoff)
                    seen = block[0];
                }
#pragma omp critical(handoff)
                for (int k = 0; k < BLOCK; k++)
                    bad += block[k] != r * 7L + k;
            }
        }
    }
    long total = 0;
    for (int j = 0; j < N; j++)
        total += col_sum[j];
    CHECK_EQ_LONG(bad, 0);
    if (counted && omp_get_max_threads() > 1) {
        /* the last thread's node reads the other nodes' rows each step */
        CHECK(steady_prefetched > 0);
        /* the pages not mapped at once were checked: read */
        CHECK(steady_hits * 10 >= (steady_prefetched - steady_mapped) * 9);
    }
    RESULT("column sums %ld", total);
    return check_status("omp_prefetch");
}
