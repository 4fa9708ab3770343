/*
 * omp_refresh.c - pages read in every epoch: node 0's serial writes read
 * by every thread of the next region (a local variable of main that the
 * region shares, a heap array, a global array), and a heap array the
 * master writes inside the region and every thread reads after a barrier,
 * region after region, every value checked every time.  On several nodes
 * these pages become hot and, from a home on this host, are refreshed at
 * the fork and at the barrier instead of invalidated; a refresh that missed
 * a write shows as a wrong value.  OMP_REFRESH_COUNTED=1: every node but 0
 * must have refreshed pages (DSM statistics, read inside a last region);
 * =0: none may have; =direct: every node but 0 reads node 0's pages
 * through a mapping of its memory (direct reads), so it must have mapped
 * pages and refreshed none.  That holds because the other nodes write no
 * page of node 0's in the rounds: their partial `bad' goes to node 0 in a
 * message (the plug-in's sized reduction); on the locked path they would
 * write it on the master's stack and rightly refresh that page.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <dsm.h>

#include "omp_check.h"

#define ROUNDS 50
#define WORDS 1024   /* two pages */
#define MAX_NODES 64

static long global_words[WORDS];

static long region_round(int round, long *scalar, long *heap, long *mid)
{
    long bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        bad += *scalar != round * 3L + 1;
        for (int w = 0; w < WORDS; w++)
            bad += heap[w] != round * 100000L + w ||
                   global_words[w] != round * 7L + w;
#pragma omp master
        for (int w = 0; w < WORDS; w++)
            mid[w] = round * 11L + w;
#pragma omp barrier
        for (int w = 0; w < WORDS; w++)
            bad += mid[w] != round * 11L + w;
    }
    return bad;
}

int main(void)
{
    long *heap = malloc(WORDS * sizeof *heap);
    long *mid = malloc(WORDS * sizeof *mid);
    CHECK(heap != NULL && mid != NULL);
    long scalar = 0;
    for (int round = 1; round <= ROUNDS; round++) {
        scalar = round * 3L + 1;
        for (int w = 0; w < WORDS; w++) {
            heap[w] = round * 100000L + w;
            global_words[w] = round * 7L + w;
        }
        CHECK_EQ_LONG(region_round(round, &scalar, heap, mid), 0);
    }

    long refreshed[MAX_NODES], mapped[MAX_NODES];
    memset(refreshed, 0, sizeof refreshed);
    memset(mapped, 0, sizeof mapped);
#pragma omp parallel
    {
        dsm_stats_t s;
        dsm_stats_get(&s);
        int node = dsm_node_id();
#pragma omp critical
        if (node < MAX_NODES) {
            if ((long)s.refreshes > refreshed[node])
                refreshed[node] = (long)s.refreshes;
            if ((long)s.direct_pages > mapped[node])
                mapped[node] = (long)s.direct_pages;
        }
    }
    const char *counted = getenv("OMP_REFRESH_COUNTED");
    int nodes = dsm_num_nodes() < MAX_NODES ? dsm_num_nodes() : MAX_NODES;
    for (int n = 1; counted && n < nodes; n++) {
        if (!strcmp(counted, "1")) {
            CHECK(refreshed[n] > 0);
        } else if (!strcmp(counted, "direct")) {
            CHECK(mapped[n] > 0);
            CHECK_EQ_LONG(refreshed[n], 0);
        } else {
            CHECK_EQ_LONG(refreshed[n], 0);
        }
    }
    free(heap);
    free(mid);
    return check_status("omp_refresh");
}
