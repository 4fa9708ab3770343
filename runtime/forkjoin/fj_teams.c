/*
 * fj_teams.c - the teams construct on the host: a league of one team.
 *
 * The specification lets an implementation create fewer teams than
 * num_teams asks for (clang 14 and gcc pass only the upper bound), and a
 * team of the cluster already spans every node: the teams region runs on
 * the encountering thread as team 0 of 1, `distribute` then gives that
 * team every iteration (fj_static_init: the thread is alone), and a
 * parallel region inside forks across the cluster as from serial code.
 * thread_limit (or OMP_TEAMS_THREAD_LIMIT) bounds the thread-limit-var of
 * the team's contention group while the region runs, so its parallel
 * regions have at most that many threads (on node 0, which sizes them;
 * omp_get_thread_limit on other nodes still says the job's limit).
 *
 * Layer: forkjoin.  Entry points: fj_teams (clang's __kmpc_fork_teams),
 * fj_teams_run (gcc's GOMP_teams_reg).  Application threads, outside any
 * parallel region.
 */
#include <string.h>

#include "base_log.h"
#include "fj_internal.h"

static int teams_begin(fj_thread_t *self, const char *where, int limit)
{
    if (self->team || self->serial || self->in_teams)
        dsm_fatal("dsmomp: teams inside a %s is not supported (%s): the "
                  "specification allows teams only outside parallel "
                  "regions", self->in_teams ? "teams region"
                                            : "parallel region", where);
    if (limit <= 0)
        limit = fj_icv_teams_thread_limit();
    self->in_teams = 1;
    return fj_icv_limit_threads(limit);
}

static void teams_end(fj_thread_t *self, int saved_limit)
{
    fj_icv_restore_thread_limit(saved_limit);
    self->in_teams = 0;
}

void fj_teams(const char *where, int thread_limit, fj_microtask_t microtask,
              int argc, void *const *args)
{
    if (argc < 0 || argc > FJ_MAX_ARGS)
        dsm_fatal("the teams region at %s passes %d variables; dsmomp "
                  "supports at most %d", where, argc, FJ_MAX_ARGS);
    fj_thread_t *self = fj_self();
    int saved = teams_begin(self, where, thread_limit);
    void *slots[FJ_MAX_ARGS] = {0};
    memcpy(slots, args, (size_t)argc * sizeof *slots);
    int32_t gtid = self->gtid, btid = 0;
    fj_call_microtask(microtask, &gtid, &btid, slots);
    teams_end(self, saved);
}

void fj_teams_run(const char *where, int thread_limit, void (*fn)(void *),
                  void *data)
{
    fj_thread_t *self = fj_self();
    int saved = teams_begin(self, where, thread_limit);
    fn(data);
    teams_end(self, saved);
}
