/*
 * fj_teams.c - the teams construct on the host: the league's teams run
 * one after the other on the encountering thread.
 *
 * Programs written for accelerators (`target teams distribute parallel
 * for`) reach the host runtime as teams when built without offloading.
 * A team of the cluster already spans every node, so the league needs no
 * concurrency of its own: team t is the encountering thread running the
 * region with omp_get_team_num() == t, as libgomp runs host teams.  Teams
 * may not synchronise with each other, so running them in turn is a
 * valid schedule.  The league has as many teams as num_teams asks for
 * (OpenMP 5.1 reads num_teams(n) as exactly n; gcc passes only the upper
 * bound, clang 14 only one number), one without the clause.  `distribute`
 * splits its iterations over the teams (fj_static_init; gcc asks
 * omp_get_team_num itself), and a parallel region inside forks across the
 * cluster as from serial code, the FORK carrying the team's number.
 * thread_limit (or OMP_TEAMS_THREAD_LIMIT) lowers the thread-limit-var of
 * the teams' contention groups while the region runs, so their parallel
 * regions have at most that many threads (node 0 sizes them;
 * omp_get_thread_limit on other nodes still says the job's limit).
 *
 * Layer: forkjoin.  Entry points: fj_teams (clang's __kmpc_fork_teams),
 * fj_teams_run (gcc's GOMP_teams_reg).  Application threads, outside any
 * parallel region.
 */
#include <string.h>

#include "base_log.h"
#include "fj_internal.h"

static int teams_begin(fj_thread_t *self, const char *where, int num_teams,
                       int limit)
{
    if (self->team || self->serial || self->in_teams)
        dsm_fatal("dsmomp: teams inside a %s is not supported (%s): the "
                  "specification allows teams only outside parallel "
                  "regions", self->in_teams ? "teams region"
                                            : "parallel region", where);
    if (limit <= 0)
        limit = fj_icv_teams_thread_limit();
    self->in_teams = 1;
    self->num_teams = num_teams > 0 ? num_teams : 1;
    return fj_icv_limit_threads(limit);
}

static void teams_end(fj_thread_t *self, int saved_limit)
{
    fj_icv_restore_thread_limit(saved_limit);
    self->in_teams = 0;
    self->team_num = 0;
    self->num_teams = 1;
}

void fj_teams(const char *where, int num_teams, int thread_limit,
              fj_microtask_t microtask, int argc, void *const *args)
{
    if (argc < 0 || argc > FJ_MAX_ARGS)
        dsm_fatal("the teams region at %s passes %d variables; dsmomp "
                  "supports at most %d", where, argc, FJ_MAX_ARGS);
    fj_thread_t *self = fj_self();
    int saved = teams_begin(self, where, num_teams, thread_limit);
    void *slots[FJ_MAX_ARGS] = {0};
    memcpy(slots, args, (size_t)argc * sizeof *slots);
    for (int t = 0; t < self->num_teams; t++) {
        int32_t gtid = self->gtid, btid = 0;
        self->team_num = t;
        fj_call_microtask(microtask, &gtid, &btid, slots);
    }
    teams_end(self, saved);
}

void fj_teams_run(const char *where, int num_teams, int thread_limit,
                  void (*fn)(void *), void *data)
{
    fj_thread_t *self = fj_self();
    int saved = teams_begin(self, where, num_teams, thread_limit);
    for (int t = 0; t < self->num_teams; t++) {
        self->team_num = t;
        fn(data);
    }
    teams_end(self, saved);
}
