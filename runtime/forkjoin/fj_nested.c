/*
 * fj_nested.c - active nested parallel regions: a member of a team that
 * meets a parallel region (and whose max-active-levels ICV allows one
 * more active level) becomes the master of a new team made of threads of
 * its own node.
 *
 * Why inside one node: the inner team's every construct then synchronises
 * within one process - its barrier is the node-local part of the team
 * barrier alone (team->nodes is 1), its loop counters, single numbering
 * and copyprivate word are the team's own words in private memory
 * (team->words, which fj_words.c serves with the CPU's atomics), its
 * reductions combine in the node (the original, which other inner teams
 * may share, under a cluster lock: fj_reduce.c) - and nothing it does touches the state
 * the cluster's team keeps across nodes: the loop slots and single
 * instances numbered alike on every node (the master's counters of the
 * outer region are saved and restored around the inner one).  Memory
 * needs nothing more: the members share the node's mappings, and what
 * they write reaches other nodes at the outer team's next barrier or join,
 * as the master's own writes would.  Critical sections and locks stay
 * cluster-wide: they exclude every thread of the program.
 *
 * Threads: the node's pool threads are all busy in the outer team, so
 * inner teams take *extra* threads, created on demand (at most
 * FJ_NEST_THREADS per node) and kept idle between inner regions.  Each
 * runs on a sharable stack like a pool thread (shared variables of an
 * inner region are its master's locals, passed by address, and its own
 * locals may be passed on in turn).  An inner team that finds no thread
 * free is smaller, down to one thread: then its region runs serialised.
 *
 * Team structures: a thread forks at most one inner team per level at a
 * time, so each thread keeps one per level (thread->inner[]) and reuses
 * it.  The team records its level, its active level and its parent (the
 * forking thread's team, its number there and that team's level) for
 * omp_get_level, omp_get_ancestor_thread_num and omp_get_team_size.
 *
 * Layer: forkjoin.  fj_nested_fork: a member of a team, from fj_fork.
 * Extra threads run nest_worker.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "fj_internal.h"
#include "fj_task.h"
#include "fj_wait.h"
#include "sys_activity.h"

static struct {
    pthread_mutex_t lock;
    fj_thread_t *idle[FJ_NEST_THREADS];
    int nidle;
    int created;
} nest = {PTHREAD_MUTEX_INITIALIZER, {0}, 0, 0};

/* An idle extra thread may sleep for the rest of the job.  fj_wait's
 * sleepers count would then make every wake-up of the process (each
 * barrier of the outer team) a system call, so idle extra threads keep
 * their own flag, which only their waker reads: both sides store, then
 * read the other's word, sequentially consistent, so one sees the
 * other. */
static void idle_wait(fj_thread_t *self, uint32_t seen)
{
    for (int i = 0; i < fj.spin; i++) {
        if (atomic_load_explicit(&self->go, memory_order_acquire) != seen)
            return;
        dsm_cpu_relax();
    }
    while (atomic_load_explicit(&self->go, memory_order_acquire) == seen) {
        atomic_store(&self->idle_asleep, 1);
        if (atomic_load(&self->go) == seen)
            dsm_futex_wait(&self->go, seen, NULL);
        atomic_store(&self->idle_asleep, 0);
    }
}

static void idle_wake(fj_thread_t *t)
{
    atomic_fetch_add(&t->go, 1);
    if (atomic_load(&t->idle_asleep))
        dsm_futex_wake(&t->go, 1);
}

static void nest_worker(void *arg)
{
    fj_thread_t *self = arg;
    uint32_t seen = 0;
    for (;;) {
        dsm_activity_saved_t saved;   /* what dsmrun says if the node dies */
        dsm_activity_wait_begin(&saved, "a nested parallel region", -1);
        idle_wait(self, seen);
        dsm_activity_end(&saved);
        seen = atomic_load_explicit(&self->go, memory_order_acquire);
        fj_team_t *team = self->assigned;
        uint32_t members = (uint32_t)team->local_count;
        fj_member_run(self, team, self->assigned_num);
        if (atomic_fetch_add_explicit(&team->done, 1, memory_order_acq_rel) +
            2 == members)
            fj_wake_all(&team->done);
    }
}

/* Up to want idle extra threads, creating them as needed; returns how
 * many it took. */
static int take_threads(fj_thread_t **out, int want)
{
    int got = 0;
    pthread_mutex_lock(&nest.lock);
    while (got < want && nest.nidle > 0)
        out[got++] = nest.idle[--nest.nidle];
    while (got < want && nest.created < FJ_NEST_THREADS) {
        int k = nest.created++;
        fj_thread_t *t = fj_thread_create(fj.threads + k);
        t->gtid = fj.size * fj.threads + fj.rank * FJ_NEST_THREADS + k;
        fj_thread_start(t, nest_worker,
                        "an extra thread for a nested parallel region");
        out[got++] = t;
    }
    pthread_mutex_unlock(&nest.lock);
    return got;
}

static void give_back(fj_thread_t **threads, int n)
{
    pthread_mutex_lock(&nest.lock);
    DSM_ASSERT(nest.nidle + n <= nest.created);
    for (int i = 0; i < n; i++)
        nest.idle[nest.nidle++] = threads[i];
    pthread_mutex_unlock(&nest.lock);
}

static fj_team_t *inner_team(fj_thread_t *self, int level)
{
    fj_team_t *team = self->inner[level];
    if (team)
        return team;
    team = calloc(1, sizeof *team);
    fj_control_t *words = calloc(1, sizeof *words);
    if (!team || !words)
        dsm_fatal("out of memory for a nested parallel region's team");
    pthread_mutex_init(&team->loop_mutex, NULL);
    pthread_cond_init(&team->loop_cond, NULL);
    team->words = words;
    self->inner[level] = team;
    return team;
}

int fj_nested_fork(fj_thread_t *self, fj_microtask_t microtask, int argc,
                   void *const *args, int nthreads)
{
    DSM_ASSERT(self->team != NULL);
    int level = fj_level_of(self) + 1;
    if (level >= FJ_MAX_LEVELS)
        return 0;        /* no loop state that deep: serialised */
    fj_thread_t *workers[FJ_NEST_THREADS];
    if (nthreads - 1 > FJ_NEST_THREADS)
        nthreads = FJ_NEST_THREADS + 1;
    int got = take_threads(workers, nthreads - 1);
    if (got == 0)
        return 0;
    int n = got + 1;

    fj_team_t *team = inner_team(self, level);
    team->region = 0;
    team->microtask = microtask;
    memcpy(team->args, args, (size_t)argc * sizeof *args);
    for (int i = argc; i < team->argc; i++)
        team->args[i] = NULL;
    team->argc = argc;
    team->nthreads = n;
    team->nodes = 1;
    team->first = 0;
    team->local_count = n;
    team->loop_base = team->single_base = 0;
    team->single_decided = 0;
    team->icv = self->icv;
    team->level = level;
    team->active_level = fj_active_level_of(self) + 1;
    team->team_num = self->team->team_num;
    team->num_teams = self->team->num_teams;
    team->parent = self->team;
    team->parent_level = self->team->level;
    team->parent_num = self->num;
    memset(team->words, 0, sizeof *team->words);
    atomic_store_explicit(&team->done, 0, memory_order_relaxed);
    atomic_store_explicit(&team->bar.arrived, 0, memory_order_relaxed);
    fj_cancel_team_open_nested(team);
    fj_task_nested_open(team);

    for (int i = 0; i < got; i++) {
        workers[i]->assigned = team;
        workers[i]->assigned_num = i + 1;
        idle_wake(workers[i]);
    }
    fj_saved_region_t outer;
    fj_region_save(self, &outer);
    fj_member_run(self, team, 0);
    fj_wait_at_least(&team->done, (uint32_t)got);
    fj_region_restore(self, &outer);
    give_back(workers, got);
    return 1;
}
