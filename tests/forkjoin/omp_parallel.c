/*
 * omp_parallel.c - parallel regions: thread numbers and team sizes, the
 * team spread over the nodes, a stack variable of main written by every
 * thread under a critical section, smaller teams (num_threads, including
 * fewer threads than nodes), if(0), nested (serialised) regions, argv
 * read inside a region, and many regions in a row, whole teams and
 * smaller ones with barriers inside, each reading what every thread of
 * the previous one wrote.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <string.h>

#include "kmp_cluster.h"
#include "omp_check.h"

#define MAX_THREADS 64

/* Each thread writes its own entry: longs, because the DSM diffs pages in
 * 8-byte words and neighbours written by different nodes must not share
 * one. */
static long seen[MAX_THREADS];
static long node_of[MAX_THREADS];
static long stage[MAX_THREADS];

/* Regions in a row.  A whole team ends with a one-way join: the other
 * nodes learn what the rest wrote only from the next FORK.  A team of two
 * on three or more nodes leaves nodes without members, which meet the
 * region's barriers and must stop exactly at its join while node 0 may
 * already be writing the word of the next barrier or region. */
static void regions_in_a_row(int all, int rounds)
{
    int last = 0;                  /* threads of the previous region */
    for (int t = 0; t < MAX_THREADS; t++)
        stage[t] = -1;
    for (int round = 0; round < rounds; round++) {
        int n = round % 3 == 1 && all > 2 ? 2 : all;
#pragma omp parallel num_threads(n)
        {
            int me = omp_get_thread_num();
            for (int t = 0; t < last; t++)
                CHECK_EQ_LONG(stage[t], round - 1);
#pragma omp barrier
            stage[me] = round;
#pragma omp barrier
            CHECK_EQ_LONG(stage[(me + 1) % n], round);
        }
        last = n;
    }
}

static void team_of(int expected)
{
    long count = 0;                /* main's stack, shared with the team */
    long sum = 0;
    memset(seen, 0, sizeof seen);
#pragma omp parallel num_threads(expected)
    {
        int me = omp_get_thread_num();
        CHECK_EQ_LONG(omp_get_num_threads(), expected);
        CHECK(me >= 0 && me < expected);
        CHECK(omp_in_parallel() == (expected > 1));
        CHECK_EQ_LONG(omp_get_level(), 1);
        seen[me]++;
        node_of[me] = kmp_get_process_num();
#pragma omp critical
        {
            count++;
            sum += me;
        }
    }
    CHECK_EQ_LONG(count, expected);
    CHECK_EQ_LONG(sum, (long)expected * (expected - 1) / 2);
    for (int t = 0; t < expected; t++)
        CHECK_EQ_LONG(seen[t], 1);
    /* blocks of consecutive thread numbers per node, node 0 first */
    CHECK_EQ_LONG(node_of[0], 0);
    for (int t = 1; t < expected; t++)
        CHECK(node_of[t] >= node_of[t - 1]);
}

int main(int argc, char **argv)
{
    int nodes = kmp_get_num_processes();
    int all = omp_get_max_threads();
    CHECK(!omp_in_parallel());
    CHECK_EQ_LONG(omp_get_level(), 0);
    CHECK_EQ_LONG(omp_get_num_threads(), 1);
    CHECK(all >= nodes && all <= MAX_THREADS);

    team_of(all);
    if (all > 2)
        team_of(all - 1);
    if (all >= 2)
        team_of(2);                /* fewer threads than nodes with 3+ */

    /* the whole team again, spread over every node */
    long nodes_seen[MAX_THREADS] = {0};
#pragma omp parallel
    nodes_seen[kmp_get_process_num()] = 1;
    for (int n = 0; n < nodes; n++)
        CHECK_EQ_LONG(nodes_seen[n], 1);

    /* a team of one, if(0), and a nested region run serialised */
    long ran = 0;
#pragma omp parallel num_threads(1)
    {
        CHECK_EQ_LONG(omp_get_num_threads(), 1);
        CHECK(!omp_in_parallel());
        ran++;
    }
#pragma omp parallel if (ran < 0)
    {
        CHECK_EQ_LONG(omp_get_num_threads(), 1);
        CHECK_EQ_LONG(omp_get_level(), 1);
        ran++;
    }
    CHECK_EQ_LONG(ran, 2);
    long inner_total = 0;
#pragma omp parallel
    {
        int outer = omp_get_thread_num();
#pragma omp parallel num_threads(4)
        {
            CHECK_EQ_LONG(omp_get_num_threads(), 1);
            CHECK_EQ_LONG(omp_get_thread_num(), 0);
            CHECK_EQ_LONG(omp_get_level(), 2);
            CHECK_EQ_LONG(omp_get_active_level(), all > 1);
            CHECK_EQ_LONG(omp_get_ancestor_thread_num(1), outer);
#pragma omp critical
            inner_total++;
        }
    }
    CHECK_EQ_LONG(inner_total, all);

    /* omp_set_num_threads sets the next team's size */
    int two = all >= 2 ? 2 : 1;
    omp_set_num_threads(two);
    CHECK_EQ_LONG(omp_get_max_threads(), two);
    long size = 0;
#pragma omp parallel
#pragma omp master
    size = omp_get_num_threads();
    CHECK_EQ_LONG(size, two);
    omp_set_num_threads(all);

    /* argv is readable everywhere */
    long argv_ok = 0;
#pragma omp parallel reduction(+ : argv_ok)
    argv_ok += argc >= 1 && strstr(argv[0], "omp_parallel") != NULL;
    CHECK_EQ_LONG(argv_ok, all);

    regions_in_a_row(all, 300);
    return check_status("omp_parallel");
}
