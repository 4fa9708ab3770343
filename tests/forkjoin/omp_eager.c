/*
 * omp_eager.c - pages that several nodes write in every epoch (false
 * sharing: thread t writes every nthreads-th word of each page), read by
 * every thread after each barrier, every value checked every time.  On
 * several nodes such a page stays writable on the nodes that do not home
 * it ("eager", coh_interval.c): its diff goes home at each barrier and it
 * is refreshed at the departure.  The rounds cover what may end or test
 * that state: barriers inside one region and one region per round (joins
 * and forks), a critical section writing the same pages (a lock release
 * while other threads run), words written and restored within an epoch,
 * pages written only every other round, and quiet rounds long enough to
 * have them protected again before the writes resume.
 *
 * OMP_EAGER_COUNTED=1: in the steady phase no node takes a write fault
 * (DSM statistics, read inside the region): the home keeps its pages
 * writable, and so do the others (home moves may make any node the home).
 * OMP_EAGER_VERBOSE=1 prints each node's count.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <dsm.h>

#include "omp_check.h"

#define PAGES 3
#define WORDS (PAGES * 512)
#define COUNTER 5          /* the critical section's word, in page 0 */
#define MAX_NODES 64

static long value(long round, int w) { return round * 100003L + w; }

/* Thread t's share of the words, then a barrier and a check of all. */
static long write_and_check(long *a, long round, int restore)
{
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    long bad = 0;
    for (int w = t; w < WORDS; w += n) {
        if (w == COUNTER)
            continue;
        if (restore) {   /* nobody may see this value */
            volatile long *v = &a[w];
            long keep = *v;
            *v = -1;
            *v = keep;
        }
        a[w] = value(round, w);
    }
#pragma omp barrier
    for (int w = 0; w < WORDS; w++)
        if (w != COUNTER)
            bad += a[w] != value(round, w);
#pragma omp barrier
    return bad;
}

/* The write faults a thread's node took between two of its snapshots,
 * the largest any thread saw (stored after the second snapshot: the
 * store itself may fault). */
static void node_faults(const dsm_stats_t *from, const dsm_stats_t *to,
                        long *faults)
{
    long n = (long)(to->write_faults - from->write_faults);
    int node = dsm_node_id();
#pragma omp critical
    if (node < MAX_NODES && n > faults[node])
        faults[node] = n;
}

int main(void)
{
    long *a = malloc(WORDS * sizeof *a);
    CHECK(a != NULL);
    memset(a, 0, WORDS * sizeof *a);
    long round = 0, bad = 0, expect_counter = 0;
    long steady_faults[MAX_NODES];
    memset(steady_faults, 0, sizeof steady_faults);

    /* warm-up and steady phase: barriers inside one region */
#pragma omp parallel reduction(+ : bad)
    {
        dsm_stats_t from, to;
        for (long r = 1; r <= 10; r++)
            bad += write_and_check(a, r, 0);
        dsm_stats_get(&from);
        for (long r = 11; r <= 40; r++)
            bad += write_and_check(a, r, r % 3 == 0);
        dsm_stats_get(&to);
        node_faults(&from, &to, steady_faults);
    }
    round = 40;
    CHECK_EQ_LONG(bad, 0);

    /* one region per round: the one-way join, the fork's import */
    for (int k = 0; k < 20; k++) {
        round++;
#pragma omp parallel reduction(+ : bad)
        bad += write_and_check(a, round, 0);
    }
    CHECK_EQ_LONG(bad, 0);

    /* a critical section on the same pages, then barriers again */
#pragma omp parallel reduction(+ : bad)
    {
        for (long r = 1; r <= 12; r++) {
#pragma omp critical
            a[COUNTER]++;
            bad += write_and_check(a, round + r, 0);
        }
    }
    expect_counter += 12L * omp_get_max_threads();
    round += 12;
    CHECK_EQ_LONG(a[COUNTER], expect_counter);
    CHECK_EQ_LONG(bad, 0);

    /* written every other round, then quiet for longer than a page may
     * stay eager unchanged, then written again */
#pragma omp parallel reduction(+ : bad)
    {
        for (long r = 1; r <= 12; r++) {
            if (r % 2)
                bad += write_and_check(a, round + r, 0);
            else
                for (int w = 0; w < WORDS; w++)
                    if (w != COUNTER)
                        bad += a[w] != value(round + r - 1, w);
#pragma omp barrier
        }
        for (int q = 0; q < 12; q++) {
            for (int w = 0; w < WORDS; w++)
                if (w != COUNTER)
                    bad += a[w] != value(round + 11, w);
#pragma omp barrier
        }
        for (long r = 20; r <= 24; r++)
            bad += write_and_check(a, round + r, 0);
    }
    round += 24;
    CHECK_EQ_LONG(bad, 0);

    /* the master alone writes all of it: node 0's serial writes */
    round++;
    for (int w = 0; w < WORDS; w++)
        if (w != COUNTER)
            a[w] = value(round, w);
#pragma omp parallel reduction(+ : bad)
    for (int w = 0; w < WORDS; w++)
        if (w != COUNTER)
            bad += a[w] != value(round, w);
    CHECK_EQ_LONG(bad, 0);
    CHECK_EQ_LONG(a[COUNTER], expect_counter);

    const char *counted = getenv("OMP_EAGER_COUNTED");
    int nodes = dsm_num_nodes() < MAX_NODES ? dsm_num_nodes() : MAX_NODES;
    for (int n = 0; n < nodes; n++) {
        if (getenv("OMP_EAGER_VERBOSE"))
            fprintf(stderr, "node %d: %ld write faults in the steady phase\n",
                    n, steady_faults[n]);
        if (counted && !strcmp(counted, "1"))
            CHECK_EQ_LONG(steady_faults[n], 0);
    }
    RESULT("rounds %ld counter %ld", round, a[COUNTER]);
    free(a);
    return check_status("omp_eager");
}
