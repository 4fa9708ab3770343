/*
 * fj_task_pool.c - where ready tasks wait and how threads wait for tasks:
 * a node's team pool (one deque per team thread of the node, with
 * stealing), each thread's own pool for tasks made outside an active team,
 * bells, and the waiting done at task scheduling points: taskwait,
 * taskgroup ends, barriers, the end of a region, and a pool thread's idle
 * time between regions.
 *
 * Deques: the owner pushes and pops at the tail (newest first), thieves
 * take from the head (oldest first), all under a spin lock per deque (held
 * for a few instructions; tasks are coarser than that).  Tasks with a
 * priority and tasks made ready by a thread that is not a member of the
 * pool (a fulfilled event, a released dependence) go to the pool's shared
 * queue, ordered by priority, which every member looks at first.
 *
 * Waiting: spin fj.spin rounds (OMP_WAIT_POLICY), trying to run a task in
 * each, then sleep on the thread's bell.  Whoever makes the awaited
 * condition true rings the bell published for it (a task's waiter, a
 * taskgroup's waiter) or every sleeping member (a barrier, the pool's
 * last task).  A push wakes one sleeping member.  Lost wake-ups: the
 * sleeper publishes that it sleeps and then looks again (at its condition,
 * and at the deques' push counters as they were before its last try, or
 * at the pool's unfinished count when it had no task); the waker changes
 * the state and then looks whether anyone sleeps.  Both use sequentially
 * consistent operations, so one of them sees the other.
 *
 * A team inside one node (a nested region, fj_nested.c) has a pool of its
 * own, indexed by thread number, which its master drains at the region's
 * end; its members sleep on their own bells, registered as they start.
 *
 * The team pool serves one region at a time.  A member whose implicit task
 * returned leaves when nothing is queued and goes back to the pool's idle
 * wait, from where a push calls it back (fj_task_idle_wait: it enters as a
 * helper, counted in `helpers`, only while the pool is open); node thread
 * 0 stays until every member's implicit task returned and every task is
 * complete.  A new region closes the pool and waits for helpers to leave
 * before it resets it.
 *
 * Layer: forkjoin.  Application threads; the team pool's members are the
 * node's team threads of the current region.
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_activity.h"
#include "base_log.h"
#include "fj_partials.h"
#include "fj_task.h"
#include "fj_wait.h"
#include "sys_activity.h"

#define DEQUE_INITIAL 64

typedef struct fj_prio_bucket {
    int prio;
    fj_task_t *head, *tail;
} fj_prio_bucket_t;

static fj_task_pool_t team_pool;
static pthread_once_t team_once = PTHREAD_ONCE_INIT;

/* ---- small primitives ---------------------------------------------------- */

/* One round of spinning; every 512 rounds the CPU is yielded, because
 * with more threads than cores the thread being waited for may need this
 * very core.  (fj_wait.c yields every 1024 pauses; a round here also looks
 * at the pool and takes about twice as long.) */
enum { YIELD_EVERY = 512 };

void fj_bell_ring(fj_bell_t *bell)
{
    atomic_fetch_add(&bell->word, 1);
    if (atomic_load(&bell->asleep) != FJ_BELL_AWAKE)
        dsm_futex_wake(&bell->word, 1);
}

static void bell_sleep(fj_bell_t *bell, uint32_t seen)
{
    dsm_futex_wait(&bell->word, seen, NULL);
}

static fj_bell_t *bell_new(void)
{
    fj_bell_t *b = aligned_alloc(64, sizeof *b);
    if (!b)
        dsm_fatal("out of memory for a thread's task bell");
    memset(b, 0, sizeof *b);
    return b;
}

/* ---- pools ---------------------------------------------------------------- */

static void pool_init(fj_task_pool_t *pool, int capacity, int team)
{
    memset((void *)pool, 0, sizeof *pool);
    pool->team = team;
    pool->capacity = capacity;
    pool->members = team ? 0 : 1;
    pool->deque = aligned_alloc(64, (size_t)capacity * sizeof *pool->deque);
    pool->bell = calloc((size_t)capacity, sizeof *pool->bell);
    if (!pool->deque || !pool->bell)
        dsm_fatal("out of memory for a task pool of %d threads", capacity);
    memset(pool->deque, 0, (size_t)capacity * sizeof *pool->deque);
}

static void team_pool_init(void)
{
    int threads = fj.threads > 0 ? fj.threads : 1;
    pool_init(&team_pool, threads, 1);
    for (int i = 0; i < threads; i++)
        team_pool.bell[i] = bell_new();
}

fj_task_pool_t *fj_pool_team(void)
{
    pthread_once(&team_once, team_pool_init);
    return &team_pool;
}

fj_task_pool_t *fj_pool_alone_create(fj_bell_t *owner)
{
    fj_task_pool_t *pool = aligned_alloc(64, sizeof *pool);
    if (!pool)
        dsm_fatal("out of memory for a thread's task pool");
    pool_init(pool, 1, 0);
    pool->bell[0] = owner;
    return pool;
}

/* A team's pool: the node's team pool for the cluster's team. */
static fj_task_pool_t *pool_of(fj_team_t *team)
{
    return team->tasks ? team->tasks : fj_pool_team();
}

/* A member's index in its team's pool: its node-local number in the
 * cluster's team, its thread number in a team inside the node. */
static int member_slot(const fj_thread_t *self)
{
    return self->team->parent ? self->num : self->local;
}

/* The calling thread's deque in pool, -1 when it is not a member. */
static int member_index(fj_task_pool_t *pool, fj_task_thread_t *me)
{
    if (!pool->team)
        return pool == me->alone ? 0 : -1;
    fj_thread_t *self = fj_self_or_null();
    if (!self || !self->team || self->serial > 0 ||
        pool_of(self->team) != pool)
        return -1;
    int idx = member_slot(self);
    return idx >= 0 && idx < pool->members ? idx : -1;
}

fj_task_pool_t *fj_task_context_pool(fj_task_thread_t *me)
{
    fj_thread_t *self = fj_self();
    if (self->team && self->serial == 0)
        return pool_of(self->team);
    if (!me->alone)
        me->alone = fj_pool_alone_create(me->bell);
    return me->alone;
}

/* ---- the scheduling constraint ------------------------------------------ */

/* A task may start (or resume) in a thread only if it descends from the
 * innermost task suspended there at a scheduling point other than a
 * barrier (OpenMP's task scheduling constraint): otherwise that task could
 * wait for something the new one holds (a lock, its own descendants).
 * Untied tasks are not exempt: tasks run on the stack of the thread that
 * runs them, so an untied ancestor started above a suspended task and
 * waiting for it would never let it continue. */
static int allowed(const fj_task_thread_t *me, const fj_task_t *t)
{
    const fj_task_t *root = me->tied_root;
    if (!root)
        return 1;
    const fj_task_t *p = t->parent;
    while (p && p != root && p->level > root->level)
        p = p->parent;
    return p == root;
}

/* ---- deques ----------------------------------------------------------------- */

static void deque_push(fj_deque_t *d, fj_task_t *t)
{
    dsm_mutex_lock(&d->lock);
    uint32_t n = d->tail - d->head;
    if (!d->slot || n == d->mask + 1) {
        uint32_t cap = d->slot ? (d->mask + 1) * 2 : DEQUE_INITIAL;
        fj_task_t **slot = malloc((size_t)cap * sizeof *slot);
        if (!slot)
            dsm_fatal("out of memory for a task queue of %u tasks", cap);
        for (uint32_t i = 0; i < n; i++)
            slot[i] = d->slot[(d->head + i) & d->mask];
        free(d->slot);
        d->slot = slot;
        d->mask = cap - 1;
        d->head = 0;
        d->tail = n;
    }
    d->slot[d->tail++ & d->mask] = t;
    atomic_store_explicit(&d->count, n + 1, memory_order_relaxed);
    dsm_mutex_unlock(&d->lock);
    /* sequentially consistent: ordered before the pusher's look for
     * sleepers (a locked add: cheaper than a fence) */
    atomic_fetch_add(&d->pushes, 1);
}

static fj_task_t *deque_take(fj_deque_t *d, const fj_task_thread_t *me,
                             int newest)
{
    if (atomic_load_explicit(&d->count, memory_order_relaxed) == 0)
        return NULL;
    fj_task_t *t = NULL;
    dsm_mutex_lock(&d->lock);
    /* the first allowed task from the chosen end: one the constraint
     * forbids must not hide the descendants queued behind it */
    uint32_t n = d->tail - d->head;
    for (uint32_t k = 0; k < n && !t; k++) {
        uint32_t at = newest ? d->tail - 1 - k : d->head + k;
        fj_task_t *cand = d->slot[at & d->mask];
        if (!allowed(me, cand))
            continue;
        t = cand;
        if (newest) {
            for (uint32_t i = at; i != d->tail - 1; i++)
                d->slot[i & d->mask] = d->slot[(i + 1) & d->mask];
            d->tail--;
        } else {
            for (uint32_t i = at; i != d->head; i--)
                d->slot[i & d->mask] = d->slot[(i - 1) & d->mask];
            d->head++;
        }
        atomic_store_explicit(&d->count, d->tail - d->head,
                              memory_order_relaxed);
    }
    dsm_mutex_unlock(&d->lock);
    return t;
}

/* ---- the shared queue ----------------------------------------------------- */

static void shared_push(fj_task_pool_t *pool, fj_task_t *t, int counts)
{
    dsm_mutex_lock(&pool->shared_lock);
    int i = 0;
    while (i < pool->nbuckets && pool->bucket[i].prio > t->priority)
        i++;
    if (i == pool->nbuckets || pool->bucket[i].prio != t->priority) {
        if (pool->nbuckets == pool->capbuckets) {
            int cap = pool->capbuckets ? pool->capbuckets * 2 : 4;
            fj_prio_bucket_t *b = realloc(pool->bucket,
                                          (size_t)cap * sizeof *b);
            if (!b)
                dsm_fatal("out of memory for task priorities");
            pool->bucket = b;
            pool->capbuckets = cap;
        }
        memmove(&pool->bucket[i + 1], &pool->bucket[i],
                (size_t)(pool->nbuckets - i) * sizeof *pool->bucket);
        pool->bucket[i] = (fj_prio_bucket_t){t->priority, NULL, NULL};
        pool->nbuckets++;
    }
    fj_prio_bucket_t *b = &pool->bucket[i];
    t->next = NULL;
    if (b->tail)
        b->tail->next = t;
    else
        b->head = t;
    b->tail = t;
    atomic_fetch_add_explicit(&pool->shared_count, 1, memory_order_relaxed);
    dsm_mutex_unlock(&pool->shared_lock);
    if (counts)
        atomic_fetch_add(&pool->shared_pushes, 1);
}

static fj_task_t *shared_take(fj_task_pool_t *pool, const fj_task_thread_t *me)
{
    if (atomic_load_explicit(&pool->shared_count, memory_order_relaxed) == 0)
        return NULL;
    fj_task_t *t = NULL;
    dsm_mutex_lock(&pool->shared_lock);
    for (int i = 0; i < pool->nbuckets && !t; i++) {
        fj_prio_bucket_t *b = &pool->bucket[i];
        for (fj_task_t *prev = NULL, *c = b->head; c; prev = c, c = c->next) {
            if (!allowed(me, c))
                continue;
            if (prev)
                prev->next = c->next;
            else
                b->head = c->next;
            if (b->tail == c)
                b->tail = prev;
            t = c;
            atomic_fetch_sub_explicit(&pool->shared_count, 1,
                                      memory_order_relaxed);
            break;
        }
    }
    dsm_mutex_unlock(&pool->shared_lock);
    return t;
}

/* ---- pushing and taking ------------------------------------------------------ */

/* Wake one sleeping member: one not held by the scheduling constraint
 * first. */
static void wake_one(fj_task_pool_t *pool)
{
    int n = pool->team ? pool->members : 1;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t want = pass == 0 ? FJ_BELL_FREE : FJ_BELL_CONSTRAINED;
        for (int i = 0; i < n; i++) {
            fj_bell_t *b = pool->bell[i];
            uint32_t expect = want;
            if (b && atomic_compare_exchange_strong(&b->asleep, &expect,
                                                    FJ_BELL_AWAKE)) {
                atomic_fetch_add(&b->word, 1);
                dsm_futex_wake(&b->word, 1);
                return;
            }
        }
    }
}

void fj_pool_wake_all(fj_task_pool_t *pool)
{
    int n = pool->team ? pool->members : 1;
    for (int i = 0; i < n; i++) {
        fj_bell_t *b = pool->bell[i];
        if (b && atomic_load(&b->asleep) != FJ_BELL_AWAKE)
            fj_bell_ring(b);
    }
}

void fj_pool_push(fj_task_pool_t *pool, fj_task_t *t, int may_wake)
{
    fj_task_thread_t *me = fj_task_me();
    int idx = member_index(pool, me);
    if (idx < 0 || t->priority > 0)
        shared_push(pool, t, 1);
    else
        deque_push(&pool->deque[idx], t);
    if (may_wake && atomic_load(&pool->asleep) > 0)
        wake_one(pool);
}

void fj_pool_push_blocked(fj_task_pool_t *pool, fj_task_t *t)
{
    /* not counted as a push: sleepers need not retry it before one of its
     * locks is released (fj_deps_unlock wakes them then) */
    shared_push(pool, t, 0);
}

int fj_pool_queued_here(fj_task_pool_t *pool)
{
    int idx = member_index(pool, fj_task_me());
    return idx < 0 ? 0 : (int)atomic_load_explicit(&pool->deque[idx].count,
                                                   memory_order_relaxed);
}

int fj_pool_has_work(fj_task_pool_t *pool)
{
    if (atomic_load_explicit(&pool->shared_count, memory_order_relaxed))
        return 1;
    int n = pool->team ? pool->members : 1;
    for (int i = 0; i < n; i++)
        if (atomic_load_explicit(&pool->deque[i].count, memory_order_relaxed))
            return 1;
    return 0;
}

/* Changes whenever a task is pushed: a sleeper compares the value before
 * its last try with the value after it published that it sleeps. */
static uint64_t pushes_seen(fj_task_pool_t *pool)
{
    uint64_t sum = atomic_load(&pool->shared_pushes);
    int n = pool->team ? pool->members : 1;
    for (int i = 0; i < n; i++)
        sum += atomic_load(&pool->deque[i].pushes);
    return sum;
}

int fj_pool_run_one(fj_task_thread_t *me)
{
    fj_task_pool_t *pool = fj_task_context_pool(me);
    int idx = member_index(pool, me);
    /* a task that could not start (mutexinoutset) went back to the
     * shared queue: the deques are tried all the same */
    fj_task_t *t = shared_take(pool, me);
    if (t && fj_task_execute(t))
        return 1;
    if (idx >= 0 && (t = deque_take(&pool->deque[idx], me, 1)) != NULL) {
        if (fj_task_execute(t))
            return 1;
    }
    int n = pool->team ? pool->members : 1;
    for (int k = 1; k < n; k++) {
        int victim = (idx < 0 ? 0 : idx) + k;
        if (victim >= n)
            victim -= n;
        if ((t = deque_take(&pool->deque[victim], me, 0)) != NULL &&
            fj_task_execute(t))
            return 1;
    }
    return 0;
}

/* ---- waiting ------------------------------------------------------------------ */

void fj_pool_wait(fj_task_thread_t *me, int (*done)(void *arg), void *arg,
                  fj_bell_t *_Atomic *waiter, int want_zero)
{
    fj_task_pool_t *pool = fj_task_context_pool(me);
    fj_bell_t *bell = me->bell;
    int spins = 0;
    for (;;) {
        if (done(arg))
            return;
        /* no task in the pool: nothing to look for (a barrier without
         * tasks spins as cheaply as one before tasks existed) */
        int tasks = atomic_load(&pool->unfinished) != 0;
        uint64_t pushes = tasks ? pushes_seen(pool) : 0;
        if (tasks && fj_pool_run_one(me)) {
            spins = 0;
            continue;
        }
        if (spins < fj.spin) {
            dsm_spin_step(spins++, YIELD_EVERY);
            continue;
        }
        fj_partials_flush();
        uint32_t seen = atomic_load(&bell->word);
        if (waiter)
            atomic_store(waiter, bell);
        if (want_zero)
            atomic_fetch_add(&pool->zero_waiters, 1);
        atomic_store(&bell->asleep, me->tied_root ? FJ_BELL_CONSTRAINED
                                                  : FJ_BELL_FREE);
        atomic_fetch_add(&pool->asleep, 1);
        /* a task made since the last look changed the pool's unfinished
         * count (none before) or a push counter (some before) */
        if (!done(arg) && (tasks ? pushes_seen(pool) == pushes
                                 : atomic_load(&pool->unfinished) == 0))
            bell_sleep(bell, seen);
        atomic_fetch_sub(&pool->asleep, 1);
        atomic_store(&bell->asleep, FJ_BELL_AWAKE);
        if (want_zero)
            atomic_fetch_sub(&pool->zero_waiters, 1);
        if (waiter)
            atomic_store(waiter, NULL);
        spins = 0;
    }
}

/* ---- barriers and regions ---------------------------------------------------- */

void fj_task_region_close(void)
{
    fj_task_pool_t *pool = fj_pool_team();
    /* idle members of the last region may still be looking for work (in
     * vain: its tasks are complete); they read the team being set up */
    atomic_store(&pool->open, 0);
    while (atomic_load(&pool->helpers) > 0)
        dsm_cpu_relax();
}

void fj_task_nested_open(fj_team_t *team)
{
    if (!team->tasks) {
        team->tasks = aligned_alloc(64, sizeof *team->tasks);
        if (!team->tasks)
            dsm_fatal("out of memory for a nested team's task pool");
        pool_init(team->tasks, FJ_NEST_THREADS + 1, 1);
    }
    fj_task_pool_t *pool = team->tasks;
    DSM_ASSERT(atomic_load(&pool->unfinished) == 0);
    DSM_ASSERT(team->local_count <= pool->capacity);
    for (int i = 0; i < pool->capacity; i++)
        pool->bell[i] = NULL;   /* the members register theirs */
    pool->members = team->local_count;
    atomic_store_explicit(&pool->ended, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->open, 1, memory_order_release);
}

void fj_task_member_begin(fj_thread_t *self)
{
    fj_team_t *team = self->team;
    if (team->parent && team->tasks && self->num < team->tasks->capacity)
        team->tasks->bell[self->num] = fj_task_me()->bell;
}

void fj_task_region_open(fj_team_t *team)
{
    fj_task_pool_t *pool = &team_pool;      /* fj_task_region_close made it */
    DSM_ASSERT(atomic_load(&pool->unfinished) == 0);
    if (pool->members != team->local_count)
        pool->members = team->local_count;
    atomic_store_explicit(&pool->ended, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->open, 1, memory_order_release);
}

typedef struct region_wait {
    fj_task_pool_t *pool;
    int members;
} region_wait_t;

static int region_done(void *arg)
{
    region_wait_t *w = arg;
    return atomic_load(&w->pool->ended) == w->members &&
           atomic_load(&w->pool->unfinished) == 0;
}

void fj_task_member_end(fj_thread_t *self)
{
    fj_task_thread_t *me = fj_task_me();
    fj_task_pool_t *pool = pool_of(self->team);
    int members = self->team->local_count;
    int ended = atomic_fetch_add(&pool->ended, 1) + 1;
    if (member_slot(self) == 0) {
        region_wait_t w = {pool, members};
        if (ended != members || atomic_load(&pool->unfinished) != 0)
            fj_pool_wait(me, region_done, &w, NULL, 1);
    } else {
        if (ended == members)
            fj_pool_wake_all(pool);     /* thread 0 may wait for it */
        while (atomic_load(&pool->unfinished) != 0 && fj_pool_run_one(me))
            ;
    }
    if (me->implicit->deps)
        fj_deps_clear(me->implicit);
}

typedef struct barrier_wait {
    fj_team_t *team;
    uint32_t gen;
} barrier_wait_t;

static int barrier_released(void *arg)
{
    barrier_wait_t *w = arg;
    return dsm_local_barrier_passed(&w->team->bar, w->gen);
}

static int pool_idle(void *arg)
{
    return atomic_load(&((fj_task_pool_t *)arg)->unfinished) == 0;
}

int fj_task_barrier_gather(fj_thread_t *self, uint32_t gen)
{
    fj_team_t *team = self->team;
    fj_task_pool_t *pool = pool_of(team);   /* set up when the region began */
    int last = dsm_local_barrier_arrive(&team->bar,
                                        (uint32_t)team->local_count);
    if (last && atomic_load(&pool->unfinished) == 0)
        return 1;
    fj_task_thread_t *me = fj_task_me();
    /* a barrier is not a tied task's scheduling point: no constraint */
    fj_task_t *root = me->tied_root;
    me->tied_root = NULL;
    if (last) {
        /* the last to arrive completes the barrier once the node's tasks
         * are complete (none can be made then: every member is here) */
        fj_pool_wait(me, pool_idle, pool, NULL, 1);
    } else {
        barrier_wait_t w = {team, gen};
        dsm_activity_saved_t saved;
        dsm_activity_wait_about(&saved,
                                "the other threads of this node at a barrier",
                                -1, DSM_ACTIVITY_ABOUT_TEAM_BARRIER,
                                team->region, self->barriers);
        fj_pool_wait(me, barrier_released, &w, NULL, 0);
        dsm_activity_end(&saved);
    }
    me->tied_root = root;
    return last;
}

void fj_task_barrier_release(fj_team_t *team)
{
    fj_pool_wake_all(pool_of(team));
}

void fj_task_alone_drain(void)
{
    fj_task_thread_t *me = fj_task_me_or_null();
    fj_task_pool_t *pool = me ? me->alone : NULL;
    if (!pool || atomic_load(&pool->unfinished) == 0)
        return;
    me = fj_task_me();
    fj_task_t *root = me->tied_root;
    me->tied_root = NULL;
    fj_pool_wait(me, pool_idle, pool, NULL, 1);
    me->tied_root = root;
}

/* ---- idle pool threads -------------------------------------------------------- */

/* Run the open region's queued tasks as one of its members. */
static int help(fj_thread_t *self, fj_task_thread_t *me)
{
    fj_task_pool_t *pool = &team_pool;
    if (!fj_pool_has_work(pool))
        return 0;
    atomic_fetch_add(&pool->helpers, 1);
    int ran = 0;
    if (atomic_load(&pool->open) && self->local < pool->members) {
        fj_team_t *team = &fj.team;
        self->team = team;
        self->num = team->first + self->local;
        self->icv = team->icv;
        while (fj_pool_run_one(me))
            ran = 1;
        self->team = NULL;
    }
    atomic_fetch_sub(&pool->helpers, 1);
    return ran;
}

void fj_task_idle_wait(fj_thread_t *self, _Atomic uint32_t *go,
                       uint32_t seen)
{
    fj_task_thread_t *me = fj_task_me();
    fj_task_pool_t *pool = fj_pool_team();
    fj_bell_t *bell = me->bell;
    fj_partials_flush();
    int spins = 0;
    for (;;) {
        if (atomic_load_explicit(go, memory_order_acquire) != seen)
            return;
        int tasks = atomic_load(&pool->unfinished) != 0;
        uint64_t pushes = tasks ? pushes_seen(pool) : 0;
        if (tasks && help(self, me)) {
            spins = 0;
            continue;
        }
        if (spins < fj.spin) {
            dsm_spin_step(spins++, YIELD_EVERY);
            continue;
        }
        uint32_t rung = atomic_load(&bell->word);
        atomic_store(&bell->asleep, FJ_BELL_FREE);
        atomic_fetch_add(&pool->asleep, 1);
        if (atomic_load(go) == seen &&
            (tasks ? pushes_seen(pool) == pushes
                   : atomic_load(&pool->unfinished) == 0))
            bell_sleep(bell, rung);
        atomic_fetch_sub(&pool->asleep, 1);
        atomic_store(&bell->asleep, FJ_BELL_AWAKE);
    }
}

void fj_task_idle_ring(int local)
{
    fj_task_pool_t *pool = fj_pool_team();
    if (local >= 0 && local < pool->capacity)
        fj_bell_ring(pool->bell[local]);
}
