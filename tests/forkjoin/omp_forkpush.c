/*
 * omp_forkpush.c - node 0's serial writes before a region ride on the
 * FORK as pushed updates (coh_push.c, "Pushed updates" in design.md), and
 * a pushed change never lands on a copy that is not node 0's snapshot.
 * Every region checks every word it reads:
 *   args      the tiny pattern: locals of the master's stack and a global
 *             page that node 0's serial code changes a little before
 *             every region, read by every thread in the region;
 *   mixed     a page node 0 writes serially and a worker of another node
 *             writes (other words) inside the region, read by all in the
 *             next region;
 *   skipped   a page some nodes do not read in some regions, so their
 *             copies miss epochs of changes (node 0 writes it before every
 *             region, node 1 inside some regions under a critical);
 *   proxy     regions of two threads with more nodes than that (the other
 *             nodes are proxies: they get the FORK, run nothing);
 *   nested    a nested region inside (serialised or a nested team), and
 *             a serialised region (no FORK) between forks;
 *   large     now and then a change too large to push (readers fetch).
 * OMP_FORKPUSH_COUNTED=1: in the steady phase of args, nodes other than 0
 * take pushes and fault in at most half the regions (once per region
 * without the FORK's pushes; run where homes are not mapped:
 * DSM_SAME_HOST_MAP=0, or across hosts).
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

#define ROUNDS 60
#define WORDS 512          /* a page of longs */
#define LARGE_FIRST 320    /* skipped's words of a large change */

static long args_page[WORDS] __attribute__((aligned(4096)));
static long mixed[WORDS] __attribute__((aligned(4096)));
static long skipped[WORDS] __attribute__((aligned(4096)));
static long sink[64];

static long mixed_want(int w, int r)
{
    if (r < 0)
        return 0;
    if (w < 16)            /* node 0's serial code, before region r */
        return w % 4 == r % 4 ? r * 1000L + w : mixed_want(w, r - 1);
    if (w >= 256 && w < 264)   /* the last thread, in region r */
        return r * 7L + w;
    return 0;
}

static long skipped_want(int w, int r)
{
    if (r < 0)
        return 0;
    if (w < 8)             /* node 0, before region r */
        return r * 11L + w;
    if (w == 300)          /* thread 1 (0 alone) in odd regions */
        return r % 2 ? r : skipped_want(w, r - 1);
    if (w >= LARGE_FIRST && r % 17 == 5)
        return r * 3L + w; /* a large change, now and then */
    return skipped_want(w, r - 1);
}

/* one region of the tiny pattern, with its arguments on this frame */
static void tiny_region(int r, long *bad)
{
    long scale = r * 3 + 1, offset = r;   /* read by the team */
    long local_bad = 0;
    for (int w = 0; w < 4; w++)
        args_page[(r + w) % WORDS] = r * 100L + w;
#pragma omp parallel for reduction(+ : local_bad)
    for (int i = 0; i < 64; i++) {
        sink[i] = scale * i + offset;
        for (int w = 0; w < 4; w++)
            local_bad += args_page[(r + w) % WORDS] != r * 100L + w;
    }
    for (int i = 0; i < 64; i++)
        local_bad += sink[i] != scale * i + offset;
    *bad += local_bad;
}

int main(void)
{
    long bad = 0;
#ifndef OMP_CHECK_LIBOMP
    int counted = getenv("OMP_FORKPUSH_COUNTED") &&
                  !strcmp(getenv("OMP_FORKPUSH_COUNTED"), "1");
    dsm_stats_t from = {0}, to = {0};
#endif
    /* args: the steady phase is counted */
    for (int r = 0; r < ROUNDS; r++) {
#ifndef OMP_CHECK_LIBOMP
        if (r == ROUNDS / 2) {
#pragma omp parallel
            {
                dsm_stats_t s;
                dsm_stats_get(&s);
#pragma omp critical
                if (omp_get_thread_num() == omp_get_num_threads() - 1)
                    from = s;
            }
        }
#endif
        tiny_region(r, &bad);
    }
#ifndef OMP_CHECK_LIBOMP
    long faults = 0, pushes = 0, node = 0;
#pragma omp parallel
    {
        dsm_stats_t s;
        dsm_stats_get(&s);
#pragma omp critical
        if (omp_get_thread_num() == omp_get_num_threads() - 1) {
            to = s;
            node = dsm_node_id();
        }
    }
    /* the last thread's node: not node 0 when there are several */
    faults = (long)(to.read_faults - from.read_faults);
    pushes = (long)(to.pushes_applied - from.pushes_applied);
    if (counted && node != 0) {
        /* ROUNDS / 2 regions: the page of the arguments and args_page
         * pushed at most forks, not fetched (without the FORK's pushes:
         * a fault per region at least).  The sanitizer build's frames are
         * laid out otherwise and fault in up to 2 regions of 5 (3x1) */
        CHECK(pushes >= ROUNDS / 2);
        CHECK(faults <= ROUNDS / 4);
        if (pushes < ROUNDS / 2 || faults > ROUNDS / 4)
            fprintf(stderr, "node %ld: %ld pushes, %ld read faults in %d "
                    "regions\n", node, pushes, faults, ROUNDS / 2);
    }
#endif
    CHECK_EQ_LONG(bad, 0);

    /* mixed, skipped, proxy, nested */
    for (int r = 0; r < ROUNDS; r++) {
        for (int w = 0; w < 16; w++)
            if (w % 4 == r % 4)
                mixed[w] = mixed_want(w, r);
        for (int w = 0; w < 8; w++)
            skipped[w] = skipped_want(w, r);
        if (r % 17 == 5)
            for (int w = LARGE_FIRST; w < WORDS; w++)
                skipped[w] = skipped_want(w, r);
        long rbad = 0;
#pragma omp parallel reduction(+ : rbad)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
            /* everything as of node 0's serial writes (and the last
             * region's worker writes) */
            for (int w = 0; w < WORDS; w++)
                rbad += mixed[w] != (w >= 256 && w < 264
                                         ? mixed_want(w, r - 1)
                                         : mixed_want(w, r));
            /* the nodes of even threads read skipped only in some
             * regions: their copies miss epochs */
            if (t % 2 == 1 || r % 3 == 0)
                for (int w = 0; w < WORDS; w++)
                    rbad += skipped[w] != (w == 300 ? skipped_want(w, r - 1)
                                                    : skipped_want(w, r));
#pragma omp barrier
            if (t == n - 1)
                for (int w = 256; w < 264; w++)
                    mixed[w] = mixed_want(w, r);
            if (t == (n > 1) && r % 2)
#pragma omp critical(skipped_word)
                skipped[300] = r;
#pragma omp barrier
            if (t == 0 || t == n - 1)
                rbad += skipped[300] != skipped_want(300, r);
            /* a nested region: serialised or a nested team */
#pragma omp parallel num_threads(2) reduction(+ : rbad)
            rbad += mixed[0] != mixed_want(0, r);
        }
        bad += rbad;
        /* a serialised region: no FORK; its writes ride on the next */
#pragma omp parallel if (0)
        args_page[WORDS - 1] = r;
        /* two threads only: other nodes may be proxies */
        long pbad = 0;
#pragma omp parallel num_threads(2) reduction(+ : pbad)
        {
            pbad += args_page[WORDS - 1] != r;
            for (int w = 0; w < 16; w++)
                pbad += mixed[w] != mixed_want(w, r);
        }
        bad += pbad;
    }
    CHECK_EQ_LONG(bad, 0);
    RESULT("bad %ld", bad);
    return check_status("omp_forkpush");
}
