/*
 * api_misc.c - the other OpenMP API routines a program calls, with the
 * behaviour the specification gives them: omp_set_num_teams /
 * omp_get_max_teams, omp_set_teams_thread_limit /
 * omp_get_teams_thread_limit, omp_get_supported_active_levels,
 * omp_get_thread_limit, omp_get_num_procs, device queries on the host,
 * omp_get_cancellation, omp_get_max_task_priority, omp_in_parallel,
 * omp_get_level, omp_pause_resource and omp_pause_resource_all (after a
 * pause the next region must work), omp_set_num_threads.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static long region_sum(void)
{
    long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < N; i++)
        s += i;
    return s;
}

int main(void)
{
    int errors = 0;
    long want = (long)N * (N - 1) / 2;

    if (omp_get_max_teams() < 0 || omp_get_teams_thread_limit() < 0)
        errors++;
    omp_set_num_teams(4);
    omp_set_teams_thread_limit(8);
    if (omp_get_max_teams() != 4 || omp_get_teams_thread_limit() != 8)
        errors++;
    if (omp_get_supported_active_levels() < 1 || omp_get_num_procs() < 1 ||
        omp_get_thread_limit() < omp_get_max_threads())
        errors++;
    if (omp_get_num_devices() < 0 || !omp_is_initial_device() ||
        omp_get_device_num() != omp_get_initial_device())
        errors++;
    if (omp_get_cancellation() != 0 || omp_get_max_task_priority() < 0)
        errors++;
    if (omp_in_parallel() || omp_get_level() != 0)
        errors++;

    int in_par = 0, level = 0;
#pragma omp parallel
    {
#pragma omp master
        {
            in_par = omp_in_parallel() || omp_get_num_threads() == 1;
            level = omp_get_level();
        }
    }
    if (!in_par || level != 1)
        errors++;

    long s1 = region_sum();
    int rc = omp_pause_resource(omp_pause_soft, omp_get_initial_device());
    long s2 = region_sum();
    int rc_all = omp_pause_resource_all(omp_pause_soft);
    long s3 = region_sum();
    if (s1 != want || s2 != want || s3 != want)
        errors++;
    (void)rc;
    (void)rc_all;

    int max = omp_get_max_threads();
    omp_set_num_threads(max > 1 ? max - 1 : 1);
    int team = 0;
#pragma omp parallel
#pragma omp single
    team = omp_get_num_threads();
    if (team != (max > 1 ? max - 1 : 1))
        errors++;

    printf("result: teams %d limit %d team %d sums %ld %ld %ld\n",
           omp_get_max_teams(), omp_get_teams_thread_limit(), team, s1, s2,
           s3);
    if (errors)
        fprintf(stderr, "api_misc: %d errors\n", errors);
    return errors ? 1 : 0;
}
