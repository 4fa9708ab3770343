/*
 * omp_redistribute.c - one array updated in place by three loops whose
 * decompositions differ, round after round, as in an ADI step: blocks,
 * mirrored blocks, then quarter pages dealt round-robin (so pages are
 * written by several nodes at once).  Every loop first checks the words
 * it is about to update against what the previous loop (run by other
 * nodes) must have left there.  On several nodes the pages a node writes
 * in every round stay writable (eager) and are refreshed at each fork and
 * departure, all of an acquire's pages in one batch of gets per home; a
 * page the batch missed or copied stale shows as a wrong value.
 * OMP_REDISTRIBUTE_COUNTED=1: every node but 0 must have refreshed pages.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <dsm.h>

#include "omp_check.h"

#define ROUNDS 30
#define PAGES 40
#define WORDS (PAGES * 512)   /* longs */
#define QUARTER 128
#define MAX_NODES 64

static long after_x(long r, long w) { return r * 7919 + w * 3; }
static long after_y(long r, long w) { return after_x(r, w) + 5 + r; }
static long after_z(long r, long w) { return after_y(r, w) * 3 + 1; }

int main(void)
{
    long *a = malloc(WORDS * sizeof *a);
    CHECK(a != NULL);
    for (long w = 0; w < WORDS; w++)
        a[w] = after_z(0, w);
    long bad = 0;
    for (long r = 1; r <= ROUNDS; r++) {
#pragma omp parallel for schedule(static) reduction(+ : bad)
        for (long w = 0; w < WORDS; w++) {
            bad += a[w] != after_z(r - 1, w);
            a[w] = after_x(r, w);
        }
#pragma omp parallel for schedule(static) reduction(+ : bad)
        for (long i = 0; i < WORDS; i++) {
            long w = WORDS - 1 - i;
            bad += a[w] != after_x(r, w);
            a[w] = after_y(r, w);
        }
#pragma omp parallel for schedule(static, 1) reduction(+ : bad)
        for (long q = 0; q < WORDS / QUARTER; q++)
            for (long w = q * QUARTER; w < (q + 1) * QUARTER; w++) {
                bad += a[w] != after_y(r, w);
                a[w] = after_z(r, w);
            }
    }
    CHECK_EQ_LONG(bad, 0);
    for (long w = 0; w < WORDS; w++)
        bad += a[w] != after_z(ROUNDS, w);
    CHECK_EQ_LONG(bad, 0);

    long refreshed[MAX_NODES];
    memset(refreshed, 0, sizeof refreshed);
#pragma omp parallel
    {
        dsm_stats_t s;
        dsm_stats_get(&s);
        int node = dsm_node_id();
#pragma omp critical
        if (node < MAX_NODES && (long)s.refreshes > refreshed[node])
            refreshed[node] = (long)s.refreshes;
    }
    const char *counted = getenv("OMP_REDISTRIBUTE_COUNTED");
    int nodes = dsm_num_nodes() < MAX_NODES ? dsm_num_nodes() : MAX_NODES;
    for (int n = 1; counted && !strcmp(counted, "1") && n < nodes; n++)
        CHECK(refreshed[n] > 0);
    free(a);
    return check_status("omp_redistribute");
}
