/*
 * ex_teams.c - the teams construct on the host, as programs written for
 * accelerators run when built without offloading: target teams distribute
 * parallel for with a reduction, teams with num_teams and thread_limit,
 * distribute with and without dist_schedule, a parallel region in a team
 * whose threads must all be in that team, and work split by hand with
 * omp_get_team_num and omp_get_num_teams.  The number
 * of teams is the implementation's choice (at most num_teams), so only
 * results that do not depend on it are printed.
 * Layer: tests, corpus 'programs'.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 6000

static double x[N], y[N];

static int check(const char *what, double got, double want)
{
    if (got != want) {
        printf("FAIL %s: %.17g, expected %.17g\n", what, got, want);
        return 1;
    }
    return 0;
}

int main(void)
{
    int bad = 0;
    double *z = malloc(N * sizeof *z);
    if (!z)
        return 1;
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        x[i] = i % 17;
        y[i] = (i % 5) - 2;
    }

    /* a daxpy with a dot product, written for a device */
    double a = 3.0, dot = 0.0;
#ifdef __clang__
#pragma omp target teams distribute parallel for map(to: x) \
    map(tofrom: y) reduction(+: dot)
#else
#pragma omp teams distribute parallel for reduction(+: dot)
#endif
    for (int i = 0; i < N; i++) {
        y[i] += a * x[i];
        dot += y[i] * x[i];
    }
    double want_dot = 0.0;
    for (int i = 0; i < N; i++) {
        double yi = (i % 5) - 2 + a * (i % 17);
        bad += check("daxpy", y[i], yi);
        want_dot += yi * (i % 17);
    }
    bad += check("dot", dot, want_dot);
    printf("result: dot %.1f\n", dot);

    /* teams, then distribute in chunks and a parallel loop per chunk */
    int limited = 0;
#pragma omp teams num_teams(4) thread_limit(2)
    {
#pragma omp distribute dist_schedule(static, 64)
        for (int i = 0; i < N; i++)
            z[i] = 2.0 * x[i] - y[i];
#pragma omp parallel
        {
            if (omp_get_thread_num() == 0) {
#pragma omp atomic write
                limited = omp_get_num_threads();
            }
        }
    }
    double zsum = 0.0;
    for (int i = 0; i < N; i++) {
        bad += check("distribute", z[i], 2.0 * x[i] - y[i]);
        zsum += z[i];
    }
    printf("result: distribute %.1f\n", zsum);
    /* at most thread_limit; how many is the implementation's choice
     * (libomp gives each of its teams what its threads allow) */
    if (limited < 1 || limited > 2) {
        printf("FAIL thread_limit(2): %d threads\n", limited);
        bad++;
    }

    /* work split by hand over the teams: one slot per team */
    long part[3] = {0, 0, 0};
    int teams_seen = 0;
#pragma omp teams num_teams(3)
    {
        int t = omp_get_team_num(), nt = omp_get_num_teams();
        if (t == 0)
            teams_seen = nt;
        if (t >= 0 && t < 3)
            for (int i = t; i < N; i += nt)
                part[t] += i;
    }
    long total = part[0] + part[1] + part[2];
    if (teams_seen < 1 || teams_seen > 3) {
        printf("FAIL omp_get_num_teams: %d teams for num_teams(3)\n",
               teams_seen);
        bad++;
    }
    bad += check("split by team", (double)total, (double)N * (N - 1) / 2);
    printf("result: split by team %ld\n", total);

    /* every thread of a team's parallel region is in that team */
    int wrong_team[4] = {0, 0, 0, 0};
#pragma omp teams num_teams(4)
    {
        int t = omp_get_team_num(), nt = omp_get_num_teams();
        int wrong = 0;
#pragma omp parallel reduction(+: wrong)
        wrong += omp_get_team_num() != t || omp_get_num_teams() != nt;
        if (t >= 0 && t < 4)
            wrong_team[t] = wrong;
    }
    for (int t = 0; t < 4; t++)
        if (wrong_team[t]) {
            printf("FAIL team %d: %d threads of its parallel region see "
                   "another team\n", t, wrong_team[t]);
            bad++;
        }

    /* distribute without a chunk: one block per team, in team order */
    int *owner = malloc(N * sizeof *owner);
    if (!owner)
        return 1;
#pragma omp teams num_teams(3)
#pragma omp distribute
    for (int i = 0; i < N; i++)
        owner[i] = omp_get_team_num();
    for (int i = 1; i < N; i++)
        if (owner[i] < owner[i - 1] || owner[i] > 2) {
            printf("FAIL distribute: iteration %d in team %d after team %d\n",
                   i, owner[i], owner[i - 1]);
            bad++;
            break;
        }
    free(owner);

    /* teams distribute parallel for with a dynamic schedule, twice */
    for (int rep = 0; rep < 2; rep++) {
#pragma omp teams distribute parallel for schedule(dynamic, 7)
        for (int i = 0; i < N; i++)
            z[i] += 1.0;
    }
    double zsum2 = 0.0;
    for (int i = 0; i < N; i++)
        zsum2 += z[i];
    bad += check("dynamic", zsum2, zsum + 2.0 * N);
    printf("result: dynamic %.1f\n", zsum2);
    free(z);
    printf("result: %s\n", bad ? "FAILED" : "ok");
    return bad != 0;
}
