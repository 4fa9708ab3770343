/*
 * omp_nested.c - nested parallel regions.  By default (one active level)
 * an inner region runs serialised; with omp_set_max_active_levels(2) (or
 * OMP_MAX_ACTIVE_LEVELS, OMP_NESTED: run as "omp_nested env LEVELS", or
 * "env max" for every supported level) every thread of the outer team gets
 * an inner team of its own: its size (num_threads), every level's thread
 * numbers and team sizes, and inside it barriers, loops of every schedule
 * (nowait ones too, more than there are loop slots), ordered, single,
 * copyprivate (of a local and of a threadprivate variable), copyin,
 * reductions and critical sections, while the outer team's loops and
 * singles, numbered alike on every node, go on around inner regions that
 * only some outer threads start.  Then three active levels, a third level
 * serialised by max-active-levels, a serialised level between two active
 * ones, a team across the cluster started inside a serialised region, and
 * explicit tasks made inside inner teams (by one thread, and by every
 * thread after a barrier), complete at the inner barrier and join.
 *
 * Built twice: threadprivate in TLS, and with -fnoopenmp-use-tls
 * (OMP_NESTED_CACHED), whose copyin clang compiles differently.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "omp_check.h"
#ifndef OMP_CHECK_LIBOMP
#include "kmp_cluster.h"
#endif

#define MAX_OUTER 16
#define MAX_INNER 4
#define ITERS 600
#define LOOPS 16                  /* loops of one inner region */

/* Entries written by different nodes are longs: see omp_parallel.c. */
static long hits[MAX_OUTER][MAX_INNER];
static long slots[MAX_OUTER][MAX_INNER];
static long marks[MAX_OUTER][ITERS];
static long order[MAX_OUTER][ITERS];
static long deep[MAX_OUTER][2][2];
static long outer_marks[13][40];   /* one row per outer loop */
static long critical_count;

static int tp_value = 5;
#pragma omp threadprivate(tp_value)

static int min_int(int a, int b) { return a < b ? a : b; }

/* The inner team a region asking for want threads gets. */
static int inner_size(int want)
{
    return min_int(want, omp_get_thread_limit());
}

static void serialised_inside(int outer_n)
{
    long inner_threads = 0;
#pragma omp parallel num_threads(outer_n) reduction(+ : inner_threads)
    {
#pragma omp parallel num_threads(3) reduction(+ : inner_threads)
        {
            CHECK_EQ_LONG(omp_get_num_threads(), 1);
            CHECK_EQ_LONG(omp_get_level(), 2);
            CHECK_EQ_LONG(omp_get_active_level(), outer_n > 1);
            CHECK_EQ_LONG(omp_get_team_size(2), 1);
            inner_threads++;
        }
    }
    CHECK_EQ_LONG(inner_threads, outer_n);
    RESULT("one active level: %ld inner threads", inner_threads);
}

/* Thread numbers and team sizes at every level; a barrier-phased
 * exchange inside each inner team. */
static void team_shape(int outer_n, int in_n)
{
    memset(hits, 0, sizeof hits);
    int active = (outer_n > 1) + (in_n > 1);
#pragma omp parallel num_threads(outer_n)
    {
        int o = omp_get_thread_num();
#ifndef OMP_CHECK_LIBOMP
        int node = kmp_get_process_num();
#endif
#pragma omp parallel num_threads(3)
        {
            int i = omp_get_thread_num();
            CHECK_EQ_LONG(omp_get_num_threads(), in_n);
            CHECK_EQ_LONG(omp_get_level(), 2);
            CHECK_EQ_LONG(omp_get_active_level(), active);
            CHECK_EQ_LONG(omp_in_parallel(), active > 0);
            CHECK_EQ_LONG(omp_get_ancestor_thread_num(0), 0);
            CHECK_EQ_LONG(omp_get_ancestor_thread_num(1), o);
            CHECK_EQ_LONG(omp_get_ancestor_thread_num(2), i);
            CHECK_EQ_LONG(omp_get_ancestor_thread_num(3), -1);
            CHECK_EQ_LONG(omp_get_team_size(0), 1);
            CHECK_EQ_LONG(omp_get_team_size(1), outer_n);
            CHECK_EQ_LONG(omp_get_team_size(2), in_n);
            CHECK_EQ_LONG(omp_get_team_size(3), -1);
#ifndef OMP_CHECK_LIBOMP
            CHECK_EQ_LONG(kmp_get_process_num(), node);   /* one node */
#endif
            hits[o][i]++;
            for (int round = 0; round < 20; round++) {
                slots[o][i] = o * 1000 + i * 10 + round;
#pragma omp barrier
                int next = (i + 1) % in_n;
                CHECK_EQ_LONG(slots[o][next], o * 1000 + next * 10 + round);
#pragma omp barrier
            }
        }
        CHECK_EQ_LONG(omp_get_level(), 1);
        CHECK_EQ_LONG(omp_get_thread_num(), o);
        CHECK_EQ_LONG(omp_get_num_threads(), outer_n);
    }
    long total = 0;
    for (int o = 0; o < outer_n; o++)
        for (int i = 0; i < in_n; i++) {
            CHECK_EQ_LONG(hits[o][i], 1);
            total += hits[o][i];
        }
    RESULT("team shape: %d outer x %d inner threads, %ld ran", outer_n,
           in_n, total);
}

/* Work-sharing, single, copyprivate, copyin, reductions and critical in
 * every inner team. */
static void inner_constructs(int outer_n, int in_n)
{
    memset(marks, 0, sizeof marks);
    memset(order, 0, sizeof order);
    critical_count = 0;
    long sums = 0, singles_total = 0, copied_total = 0, reduced_total = 0;
#pragma omp parallel num_threads(outer_n) \
    reduction(+ : sums, singles_total, copied_total, reduced_total)
    {
        int o = omp_get_thread_num();
        long sum = 0, singles = 0, copied = 0, reduced = 0, pos = 0;
        omp_set_schedule(omp_sched_dynamic, 2);  /* inherited by the team */
        tp_value = 1000 + o;
#pragma omp parallel num_threads(3) copyin(tp_value) \
    reduction(+ : sum, reduced)
        {
#ifndef OMP_NESTED_CACHED
            /* (-fnoopenmp-use-tls: clang's copyin copies from the original
             * variable, the initial thread's copy, which that thread may
             * be writing meanwhile: libomp does the same) */
            CHECK_EQ_LONG(tp_value, 1000 + o);
#endif
#pragma omp for schedule(static)
            for (int k = 0; k < ITERS; k++) { marks[o][k]++; sum += k; }
#pragma omp for schedule(static, 7)
            for (int k = 0; k < ITERS; k++) { marks[o][k]++; sum += k; }
#pragma omp for schedule(dynamic, 3)
            for (int k = 0; k < ITERS; k++) { marks[o][k]++; sum += k; }
#pragma omp for schedule(guided, 5)
            for (int k = 0; k < ITERS; k++) { marks[o][k]++; sum += k; }
#pragma omp for schedule(runtime)
            for (int k = 0; k < ITERS; k++) { marks[o][k]++; sum += k; }
#pragma omp for schedule(auto)
            for (int k = 0; k < ITERS; k++) { marks[o][k]++; sum += k; }
            /* more nowait loops than loop slots, then a barrier.  Without
             * a barrier a thread may run iteration k of the next loop
             * while a slower (preempted) one is still in iteration k of
             * this one: marks[o][k]++ there would race (libomp loses
             * counts too), so each thread counts its own, added before
             * the barrier. */
            long mine[ITERS] = {0};
            for (int l = 0; l < LOOPS - 7; l++) {
#pragma omp for schedule(dynamic, 11) nowait
                for (int k = 0; k < ITERS; k++) { mine[k]++; sum += k; }
            }
#pragma omp critical
            for (int k = 0; k < ITERS; k++)
                marks[o][k] += mine[k];
#pragma omp barrier
#pragma omp for schedule(dynamic, 1) ordered
            for (int k = 0; k < ITERS; k++) {
                marks[o][k]++;
                sum += k;
#pragma omp ordered
                order[o][pos++] = k;
            }
#pragma omp single
            singles++;
            int v = 0;
#pragma omp single copyprivate(v, tp_value)
            {
                v = 77 + o;
                tp_value = 2000 + o;
            }
#pragma omp critical
            copied += v == 77 + o && tp_value == 2000 + o;
            reduced += omp_get_thread_num() + 1;
            for (int r = 0; r < 10; r++) {
#pragma omp critical(nested_count)
                critical_count++;
            }
        }
        for (int k = 0; k < ITERS; k++) {
            CHECK_EQ_LONG(marks[o][k], LOOPS);
            CHECK_EQ_LONG(order[o][k], k);
        }
        CHECK_EQ_LONG(sum, (long)LOOPS * ITERS * (ITERS - 1) / 2);
        sums += sum;
        singles_total += singles;
        copied_total += copied;
        reduced_total += reduced;
    }
    CHECK_EQ_LONG(singles_total, outer_n);
    CHECK_EQ_LONG(copied_total, (long)outer_n * in_n);
    CHECK_EQ_LONG(reduced_total, (long)outer_n * in_n * (in_n + 1) / 2);
    CHECK_EQ_LONG(critical_count, (long)outer_n * in_n * 10);
    RESULT("inner constructs: sums %ld singles %ld copied %ld reduced %ld "
           "critical %ld", sums, singles_total, copied_total, reduced_total,
           critical_count);
}

/* The outer team's loops and singles around inner regions that only the
 * threads taking some iterations start. */
static void outer_undisturbed(int outer_n)
{
    memset(outer_marks, 0, sizeof outer_marks);
    long singles[3] = {0, 0, 0}, inner_iters = 0;
#pragma omp parallel num_threads(outer_n) reduction(+ : inner_iters)
    {
        for (int rep = 0; rep < 3; rep++) {
#pragma omp for schedule(dynamic, 1) nowait
            for (int k = 0; k < 40; k++) {
                outer_marks[rep][k]++;
                if (k % 5 == 0) {
#pragma omp parallel num_threads(2) reduction(+ : inner_iters)
                    {
#pragma omp for schedule(dynamic, 2)
                        for (int j = 0; j < 50; j++)
                            inner_iters++;
#pragma omp single
                        inner_iters += 1000;
                    }
                }
            }
#pragma omp single nowait
            singles[rep]++;
        }
#pragma omp barrier
        for (int l = 0; l < 10; l++) {
#pragma omp for schedule(guided, 1) nowait
            for (int k = 0; k < 40; k++)
                outer_marks[3 + l][k]++;
        }
    }
    for (int l = 0; l < 13; l++)
        for (int k = 0; k < 40; k++)
            CHECK_EQ_LONG(outer_marks[l][k], 1);
    long outer_singles = singles[0] + singles[1] + singles[2];
    CHECK(singles[0] == 1 && singles[1] == 1 && singles[2] == 1);
    CHECK_EQ_LONG(inner_iters, 3L * 8 * (50 + 1000));
    RESULT("outer loops around inner regions: singles %ld inner %ld",
           outer_singles, inner_iters);
}

/* Three active levels; then the third serialised by max-active-levels. */
static void three_levels(int outer_n)
{
    int mid_n = inner_size(2), in_n = inner_size(2);
    for (int levels = 3; levels >= 2; levels--) {
        omp_set_max_active_levels(levels);
        int third = levels == 3 ? in_n : 1;
        memset(deep, 0, sizeof deep);
#pragma omp parallel num_threads(outer_n)
        {
            int o = omp_get_thread_num();
#pragma omp parallel num_threads(2)
            {
                int m = omp_get_thread_num();
#pragma omp parallel num_threads(2)
                {
                    CHECK_EQ_LONG(omp_get_level(), 3);
                    CHECK_EQ_LONG(omp_get_active_level(),
                                  (outer_n > 1) + (mid_n > 1) + (third > 1));
                    CHECK_EQ_LONG(omp_get_num_threads(), third);
                    CHECK_EQ_LONG(omp_get_ancestor_thread_num(1), o);
                    CHECK_EQ_LONG(omp_get_ancestor_thread_num(2), m);
                    CHECK_EQ_LONG(omp_get_team_size(1), outer_n);
                    CHECK_EQ_LONG(omp_get_team_size(2), mid_n);
                    CHECK_EQ_LONG(omp_get_team_size(3), third);
#pragma omp atomic
                    deep[o][m][omp_get_thread_num()]++;
#pragma omp barrier
                }
            }
        }
        long total = 0;
        for (int o = 0; o < outer_n; o++)
            for (int m = 0; m < mid_n; m++)
                for (int i = 0; i < third; i++) {
                    CHECK_EQ_LONG(deep[o][m][i], 1);
                    total += deep[o][m][i];
                }
        RESULT("%d active levels allowed: %ld threads at level 3", levels,
               total);
    }
    omp_set_max_active_levels(2);
}

/* A serialised level between two active ones. */
static void serialised_between(int outer_n, int in_n)
{
    omp_set_max_active_levels(3);
    long ran = 0;
#pragma omp parallel num_threads(outer_n) reduction(+ : ran)
    {
        int o = omp_get_thread_num();
#pragma omp parallel if (0) reduction(+ : ran)
        {
#pragma omp parallel num_threads(3) reduction(+ : ran)
            {
                CHECK_EQ_LONG(omp_get_level(), 3);
                CHECK_EQ_LONG(omp_get_active_level(),
                              (outer_n > 1) + (in_n > 1));
                CHECK_EQ_LONG(omp_get_ancestor_thread_num(1), o);
                CHECK_EQ_LONG(omp_get_ancestor_thread_num(2), 0);
                CHECK_EQ_LONG(omp_get_team_size(2), 1);
                CHECK_EQ_LONG(omp_get_team_size(3), in_n);
                ran++;
            }
        }
    }
    CHECK_EQ_LONG(ran, (long)outer_n * in_n);
    RESULT("serialised level between: %ld threads", ran);
    omp_set_max_active_levels(2);
}

/* A region of one thread, and inside it the first active level: a team
 * across the cluster at level 2. */
static void team_inside_serialised(int all)
{
    long ran = 0;
#ifndef OMP_CHECK_LIBOMP
    long nodes_seen[MAX_OUTER] = {0};
#endif
#pragma omp parallel num_threads(1)
    {
#pragma omp parallel num_threads(all) reduction(+ : ran)
        {
            CHECK_EQ_LONG(omp_get_level(), 2);
            CHECK_EQ_LONG(omp_get_active_level(), all > 1);
            CHECK_EQ_LONG(omp_get_num_threads(), all);
            CHECK_EQ_LONG(omp_get_team_size(1), 1);
            CHECK_EQ_LONG(omp_get_ancestor_thread_num(1), 0);
            CHECK_EQ_LONG(omp_get_ancestor_thread_num(2),
                          omp_get_thread_num());
#ifndef OMP_CHECK_LIBOMP
            nodes_seen[kmp_get_process_num()] = 1;
#endif
            ran++;
        }
        CHECK_EQ_LONG(omp_get_level(), 1);
    }
    CHECK_EQ_LONG(ran, all);
#ifndef OMP_CHECK_LIBOMP
    for (int n = 0; n < kmp_get_num_processes() && n < all; n++)
        CHECK_EQ_LONG(nodes_seen[n], 1);
#endif
    RESULT("team inside a serialised region: %ld threads", ran);
}

/* Tasks of inner teams: made by the single thread, complete at the
 * single's barrier; made by every thread, complete at the inner join. */
static void inner_tasks(int outer_n, int in_n)
{
    long bad = 0, total = 0;
#pragma omp parallel num_threads(outer_n) reduction(+ : bad, total)
    {
        long sum = 0, after_single = -1;
#pragma omp parallel num_threads(in_n) shared(sum, after_single)
        {
#pragma omp single
            for (int i = 0; i < 100; i++) {
#pragma omp task shared(sum)
                {
#pragma omp atomic
                    sum += i;
                }
            }
#pragma omp master
            after_single = sum;
#pragma omp barrier
#pragma omp task shared(sum)
            {
#pragma omp atomic
                sum += 1000;
            }
        }
        bad += after_single != 4950;
        bad += sum != 4950 + 1000L * in_n;
        total += sum;
    }
    CHECK_EQ_LONG(bad, 0);
    RESULT("tasks in inner teams: %ld", total);
}

int main(int argc, char **argv)
{
    int all = omp_get_max_threads();
    CHECK(all <= MAX_OUTER);
    CHECK(omp_get_supported_active_levels() >= 3);
    if (argc > 2 && !strcmp(argv[1], "env")) {
        /* the environment set max-active-levels */
        int want = !strcmp(argv[2], "max") ? omp_get_supported_active_levels()
                                           : atoi(argv[2]);
        CHECK_EQ_LONG(omp_get_max_active_levels(), want);
        CHECK_EQ_LONG(omp_get_nested(), want > 1);
        if (want < 2) {
            serialised_inside(all);
            return check_status("omp_nested");
        }
    } else {
        CHECK_EQ_LONG(omp_get_max_active_levels(), 1);
        CHECK_EQ_LONG(omp_get_nested(), 0);
        serialised_inside(all);
        omp_set_max_active_levels(2);
        CHECK_EQ_LONG(omp_get_max_active_levels(), 2);
        CHECK_EQ_LONG(omp_get_nested(), 1);
    }
    int in_n = inner_size(3);
    team_shape(all, in_n);
    inner_constructs(all, in_n);
    outer_undisturbed(all);
    three_levels(all);
    serialised_between(all, in_n);
    team_inside_serialised(all);
    inner_tasks(all, in_n);
    return check_status("omp_nested");
}
