/*
 * fj_query.c - each thread's state (thread-local pointer) and the queries
 * omp_get_thread_num and friends answer from it.
 *
 * Layer: forkjoin.  Entry points: fj_self, fj_thread_create and the
 * fj_* queries of forkjoin.h.  Any application thread.  Threads the
 * runtime did not create (the program's own pthreads) get a state on
 * first use; they run every parallel region they start serialised.
 */
#include <stdlib.h>

#include "base_log.h"
#include "fj_internal.h"
#include "sys_activity.h"

static __thread __attribute__((tls_model("initial-exec")))
    fj_thread_t *self_tls;

/* Before start-up (constructors): a lone thread with default settings. */
static fj_thread_t boot = {
    .local = 0, .gtid = 0,
    .icv = {.nthreads = 1, .dynamic = 0, .sched = {FJ_SCHED_STATIC, 0},
            .max_active_levels = 1},
};

fj_thread_t *fj_self_or_null(void) { return self_tls; }
void fj_set_self(fj_thread_t *self)
{
    self_tls = self;
    /* the hang report names threads by their number in the node */
    dsm_activity_thread_number(self->local);
}

fj_thread_t *fj_thread_create(int local)
{
    fj_thread_t *t = calloc(1, sizeof *t);
    if (!t)
        dsm_fatal("out of memory for a thread's state");
    t->local = local;
    t->gtid = local < 0 ? -1 : fj.rank * fj.threads + local;
    t->icv = fj.icv_default;
    return t;
}

fj_thread_t *fj_self(void)
{
    fj_thread_t *t = self_tls;
    if (__builtin_expect(t != NULL, 1))
        return t;
    if (!fj.started)
        return &boot;
    t = fj_thread_create(-1);
    self_tls = t;
    return t;
}

fj_loop_t *fj_loop_here(fj_thread_t *self)
{
    int level = fj_level_of(self);
    if (level >= FJ_MAX_LEVELS)
        dsm_fatal("work-sharing loop in a region nested %d levels deep: "
                  "dsmomp supports %d", level, FJ_MAX_LEVELS - 1);
    return &self->loop[level];
}

int fj_started(void) { return fj.started; }
int fj_heap_open(void)
{
    return __atomic_load_n(&fj.heap_open, __ATOMIC_ACQUIRE);
}
int fj_gtid(void) { return fj_self()->gtid; }

int fj_thread_num(void)
{
    fj_thread_t *self = fj_self();
    return fj_alone(self) ? 0 : self->num;
}

int fj_num_threads(void)
{
    fj_thread_t *self = fj_self();
    return fj_alone(self) ? 1 : self->team->nthreads;
}

int fj_level(void) { return fj_level_of(fj_self()); }

int fj_team_num(void)
{
    const fj_thread_t *self = fj_self();
    if (self->team)
        return self->team->team_num;
    return self->in_teams ? self->team_num : 0;
}

int fj_num_teams(void)
{
    const fj_thread_t *self = fj_self();
    if (self->team)
        return self->team->num_teams;
    return self->in_teams ? self->num_teams : 1;
}

int fj_active_level(void) { return fj_active_level_of(fj_self()); }

/* The team that was active at `level` (1 .. the thread's level) and the
 * thread's ancestor's number in it; NULL at a serialised level. */
static const fj_team_t *team_at(const fj_thread_t *self, int level,
                                int *num)
{
    const fj_team_t *team = self->team;
    int n = self->num;
    while (team && level < team->level) {
        if (level > team->parent_level)
            return NULL;              /* serialised between the two */
        n = team->parent_num;
        team = team->parent;
    }
    if (!team || level > team->level)
        return NULL;                  /* serialised inside the team */
    *num = n;
    return team;
}

int fj_ancestor_thread_num(int level)
{
    fj_thread_t *self = fj_self();
    if (level < 0 || level > fj_level_of(self))
        return -1;
    int num;
    return level > 0 && team_at(self, level, &num) ? num : 0;
}

int fj_team_size(int level)
{
    fj_thread_t *self = fj_self();
    if (level < 0 || level > fj_level_of(self))
        return -1;
    int num;
    const fj_team_t *team = level > 0 ? team_at(self, level, &num) : NULL;
    return team ? team->nthreads : 1;
}

int fj_process_thread_num(void)
{
    fj_thread_t *self = fj_self();
    /* the node's threads are numbered 0 .. threads-1, its extra threads
     * for nested regions from threads on */
    if (self->team && !self->team->words)
        return self->num - self->team->first;
    return self->local > 0 ? self->local : 0;
}

int fj_total_threads(void)
{
    return fj.started ? fj.size * fj.threads : 1;
}

int fj_thread_id_bound(void)
{
    return fj.started ? fj.size * (fj.threads + FJ_NEST_THREADS) : 1;
}

int fj_supported_active_levels(void) { return FJ_SUPPORTED_ACTIVE_LEVELS; }
