/*
 * omp_tasks_sched.c - where and when tasks run.  Tasks made by one thread
 * run on several threads of its node: two of them wait for each other to
 * start, which only works if they run at the same time (with up to 10 s
 * to do so), both when the master makes them in `master` (the other
 * members reach the end of the region and must be called back) and in
 * `single nowait`.  Tasks made before a barrier, a worksharing loop's end
 * or the end of a region are complete after it, and their writes are
 * visible on every node.  The threads of the last node make tasks while
 * the other nodes already wait in the barrier.  With OMP_MAX_TASK_PRIORITY
 * set, tasks of a higher priority made after ones of priority 0 start
 * first (the other threads of the node are held by gate tasks until a
 * task of priority 0 starts, so the master alone runs them in the order
 * it takes them).
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <stdlib.h>

#include "kmp_cluster.h"
#include "omp_check.h"

#define TASKS 40
#define MAX_THREADS 64
#define PER_THREAD 8

static int ran_on[TASKS];
static long done[TASKS];
static int met;
static int missed;        /* a task of the pair never met the other */
static int pairs;       /* two threads per node: tasks can meet */
static long made[MAX_THREADS][PER_THREAD];
static long late[MAX_THREADS][PER_THREAD];
static long looped[256];
static long high_start[6], low_start[6];
static int gates_started, gates_open;
static long tick;

static void busy(int us)
{
    double end = omp_get_wtime() + us * 1e-6;
    while (omp_get_wtime() < end)
        ;
}

/* Both tasks of the pair return 1 only if the other one started while it
 * was running. */
static int meet(void)
{
    int seen;
#pragma omp atomic capture
    seen = ++met;
    double give_up = omp_get_wtime() + 10.0;
    while (seen < 2 && omp_get_wtime() < give_up) {
#pragma omp atomic read
        seen = met;
    }
    return seen >= 2;
}

static void generate(void)
{
    for (int i = 0; i < TASKS; i++) {
#pragma omp task firstprivate(i)
        {
            ran_on[i] = omp_get_thread_num();
            if (i < 2 && pairs && !meet())
                missed = 1;
            busy(20);
            done[i] = i + 1;
        }
    }
}

static long stamp(void)
{
    long v;
#pragma omp atomic capture
    v = ++tick;
    return v;
}

/* Wait (up to 10 s) until *word reaches value. */
static int wait_for(int *word, int value)
{
    double give_up = omp_get_wtime() + 10.0;
    int seen = 0;
    while (omp_get_wtime() < give_up) {
#pragma omp atomic read
        seen = *word;
        if (seen >= value)
            return 1;
    }
    return 0;
}

static void priorities(int per_node)
{
    int max = atoi(getenv("OMP_MAX_TASK_PRIORITY"));
    CHECK_EQ_LONG(omp_get_max_task_priority(), max);
#pragma omp parallel
#pragma omp master
    {
        for (int g = 1; g < per_node; g++) {
#pragma omp task
            {
#pragma omp atomic
                gates_started++;
                CHECK(wait_for(&gates_open, 1));
            }
        }
        CHECK(wait_for(&gates_started, per_node - 1));
        for (int k = 0; k < 6; k++) {
#pragma omp task firstprivate(k)
            {
                low_start[k] = stamp();
#pragma omp atomic write
                gates_open = 1;
            }
        }
        for (int k = 0; k < 6; k++) {
#pragma omp task priority(max) firstprivate(k)
            high_start[k] = stamp();
        }
        /* the master alone runs them here, until a low one starts and
         * lets the gates go: the order is the scheduler's, not a race */
#pragma omp taskwait
    }
    long last_high = 0, first_low = -1;
    for (int k = 0; k < 6; k++) {
        last_high = high_start[k] > last_high ? high_start[k] : last_high;
        if (first_low < 0 || low_start[k] < first_low)
            first_low = low_start[k];
    }
    CHECK(last_high < first_low);
}

static void reset(void)
{
    met = 0;
    missed = 0;
    for (int i = 0; i < TASKS; i++)
        done[i] = 0;
}

static void check_generated(int per_node, const char *how)
{
    for (int i = 0; i < TASKS; i++)
        CHECK_EQ_LONG(done[i], i + 1);
    if (per_node >= 2) {
        CHECK(!missed);
        if (missed)
            fprintf(stderr, "tasks made in %s did not run at the same time\n",
                    how);
        CHECK(ran_on[0] != ran_on[1]);
    }
}

int main(void)
{
    const char *t = getenv("DSM_THREADS");
    int per_node = t ? atoi(t) : 1;
    int nodes = kmp_get_num_processes();
    int nth = omp_get_max_threads();
    if (nth > MAX_THREADS)
        return 2;
    pairs = per_node >= 2;

    /* the master makes them, the others are past the end of the region */
#pragma omp parallel
#pragma omp master
    generate();
    check_generated(per_node, "master");

    reset();
#pragma omp parallel
    {
#pragma omp single nowait
        generate();
        /* the others wait here and take them */
#pragma omp barrier
        for (int i = 0; i < TASKS; i++)
            CHECK_EQ_LONG(done[i], i + 1);
    }
    check_generated(per_node, "single nowait");

    /* every thread's tasks are complete after the barrier, on every node */
#pragma omp parallel
    {
        int me = omp_get_thread_num();
        for (int k = 0; k < PER_THREAD; k++) {
#pragma omp task firstprivate(me, k)
            {
                busy(10);
                made[me][k] = 1000L * me + k;
            }
        }
#pragma omp barrier
        for (int who = 0; who < omp_get_num_threads(); who++)
            for (int k = 0; k < PER_THREAD; k++)
                CHECK_EQ_LONG(made[who][k], 1000L * who + k);

        /* the last node's threads make tasks while the others are in the
         * barrier already */
        if (kmp_get_process_num() == nodes - 1) {
            busy(2000);
            for (int k = 0; k < PER_THREAD; k++) {
#pragma omp task firstprivate(me, k)
                {
                    busy(200);
                    late[me][k] = 7L * me + k;
                }
            }
        }
#pragma omp barrier
        for (int who = 0; who < omp_get_num_threads(); who++)
            if (who * nodes / omp_get_num_threads() == nodes - 1 ||
                nodes == 1)
                for (int k = 0; k < PER_THREAD; k++)
                    CHECK_EQ_LONG(late[who][k], 7L * who + k);

        /* tasks made in a worksharing loop: complete at its barrier */
#pragma omp for schedule(dynamic)
        for (int i = 0; i < 256; i++) {
#pragma omp task firstprivate(i)
            looped[i] = 3L * i;
        }
        for (int i = 0; i < 256; i++)
            CHECK_EQ_LONG(looped[i], 3L * i);
    }
    /* and at the end of a region */
#pragma omp parallel
    {
        int me = omp_get_thread_num();
        for (int k = 0; k < PER_THREAD; k++) {
#pragma omp task firstprivate(me, k)
            made[me][k] = -1L - me - k;
        }
    }
    for (int who = 0; who < nth; who++)
        for (int k = 0; k < PER_THREAD; k++)
            CHECK_EQ_LONG(made[who][k], -1L - who - k);
    if (getenv("OMP_MAX_TASK_PRIORITY") && per_node >= 2)
        priorities(per_node);
    return check_status("omp_tasks_sched");
}
