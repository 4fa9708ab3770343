/*
 * omp_api.c - the values of the OpenMP API and of Intel Cluster OpenMP's
 * process queries, in serial code and in a region, for the layout dsmrun
 * started (DSM_SIZE nodes of DSM_THREADS threads).
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <stdlib.h>

#include "kmp_cluster.h"
#include "omp_check.h"

#define MAX_THREADS 64

static long node_of[MAX_THREADS];
static long local_of[MAX_THREADS];

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : 1;
}

int main(void)
{
    int nodes = env_int("DSM_SIZE"), per_node = env_int("DSM_THREADS");
    int all = nodes * per_node;
    CHECK_EQ_LONG(kmp_get_num_processes(), nodes);
    CHECK_EQ_LONG(kmp_get_process_num(), 0);
    CHECK_EQ_LONG(kmp_get_process_thread_num(), 0);
    CHECK_EQ_LONG(omp_get_max_threads(), all);
    CHECK_EQ_LONG(omp_get_thread_limit(), all);
    CHECK_EQ_LONG(omp_get_num_threads(), 1);
    CHECK_EQ_LONG(omp_get_thread_num(), 0);
    CHECK(omp_get_num_procs() >= nodes);
    CHECK(!omp_in_parallel());
    CHECK(!omp_in_final());
    CHECK_EQ_LONG(omp_get_level(), 0);
    CHECK_EQ_LONG(omp_get_active_level(), 0);
    CHECK_EQ_LONG(omp_get_team_size(0), 1);
    CHECK_EQ_LONG(omp_get_ancestor_thread_num(0), 0);
    CHECK_EQ_LONG(omp_get_ancestor_thread_num(1), -1);
    CHECK(!omp_get_dynamic());
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    CHECK(kind == omp_sched_static);
    double tick = omp_get_wtick();
    CHECK(tick > 0 && tick < 0.01);
    double t0 = omp_get_wtime();

#pragma omp parallel
    {
        int me = omp_get_thread_num();
        CHECK_EQ_LONG(omp_get_num_threads(), all);
        CHECK_EQ_LONG(omp_get_team_size(1), all);
        CHECK_EQ_LONG(omp_get_ancestor_thread_num(1), me);
        CHECK_EQ_LONG(omp_get_level(), 1);
        CHECK_EQ_LONG(omp_get_max_threads(), all);
        CHECK(omp_in_parallel() == (all > 1));
        node_of[me] = kmp_get_process_num();
        local_of[me] = kmp_get_process_thread_num();
        CHECK(omp_get_wtime() >= t0);
    }
    /* node k holds threads k * per_node .. (k + 1) * per_node - 1 */
    for (int t = 0; t < all; t++) {
        CHECK_EQ_LONG(node_of[t], t / per_node);
        CHECK_EQ_LONG(local_of[t], t % per_node);
    }
    CHECK(omp_get_wtime() >= t0);
    return check_status("omp_api");
}
