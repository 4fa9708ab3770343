/*
 * fj_task.c - the life of an explicit task: its descriptor (allocated from
 * the sharable heap, reused per thread), submission and execution (untied
 * tasks resumed part by part, included tasks of final tasks, if(0) tasks),
 * completion (parent, taskgroup, pool, dependences, detach events),
 * taskwait, taskyield and taskgroup, and each thread's task state.
 *
 * Every task belongs to the node that creates it and runs on one of that
 * node's threads, which share the node's memory: a task made by one
 * thread and run by another needs no DSM flush between them.  Other nodes
 * see what a task wrote after the next barrier, as for any write.
 *
 * Untied tasks (clang 14): at a scheduling point inside the task, its
 * entry stores the next part's number in part_id, hands the task itself to
 * __kmpc_omp_task and returns.  fj_task_submit recognises the task running
 * in this thread, only marks it, and the executor queues the task again
 * once the entry has returned (never while it still runs); the task is
 * complete when its entry returns without having handed itself back.
 *
 * Layer: forkjoin.  Application threads, inside task entries too.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "coherence.h"
#include "fj_cancel.h"
#include "fj_task.h"
#include "fj_wait.h"

/* Tasks a thread's own deque holds before it runs new ones at once (which
 * bounds the memory of a producer far ahead of its consumers). */
#define THROTTLE 256
/* Descriptor blocks kept per thread for reuse: sizes up to CACHE_MAX in
 * classes of 64 bytes, CACHE_DEPTH blocks each. */
#define CACHE_MAX 1024
#define CACHE_DEPTH 64

static __thread __attribute__((tls_model("initial-exec")))
    fj_task_thread_t *me_tls;

/* ---- per-thread state -------------------------------------------------- */

static fj_task_thread_t *me_create(void)
{
    fj_task_thread_t *me = calloc(1, sizeof *me);
    fj_task_t *implicit = aligned_alloc(64, sizeof *implicit);
    if (!me || !implicit)
        dsm_fatal("out of memory for a thread's task state");
    memset(implicit, 0, sizeof *implicit);
    implicit->magic = FJ_TASK_MAGIC;
    implicit->implicit = 1;
    implicit->refs = 1;
    implicit->node = fj.rank;
    me->implicit = implicit;
    me->current = implicit;
    return me;
}

fj_task_thread_t *fj_task_me_or_null(void) { return me_tls; }

fj_task_thread_t *fj_task_me(void)
{
    fj_task_thread_t *me = me_tls;
    if (__builtin_expect(me && me->bound, 1))
        return me;
    if (!me)
        me = me_tls = me_create();
    /* a team thread sleeps on its bell of the team pool, any other thread
     * (the extra threads of nested teams too) on a bell of its own;
     * before start-up it is not known which yet */
    if (!fj.started) {
        static fj_bell_t early;   /* the one thread before start-up */
        me->bell = &early;
    } else if (fj_self()->local >= 0 && fj_self()->local < fj.threads) {
        me->bell = fj_pool_team()->bell[fj_self()->local];
        me->bound = 1;
    } else {
        me->bell = aligned_alloc(64, sizeof *me->bell);
        if (!me->bell)
            dsm_fatal("out of memory for a thread's task bell");
        memset(me->bell, 0, sizeof *me->bell);
        me->bound = 1;
    }
    if (me->alone)
        me->alone->bell[0] = me->bell;
    return me;
}

/* ---- descriptor blocks ---------------------------------------------------- */

static int size_class(size_t bytes)
{
    return bytes <= CACHE_MAX ? (int)((bytes + 63) / 64) - 1 : -1;
}

static fj_task_t *block_alloc(fj_task_thread_t *me, size_t bytes,
                              const char *where)
{
    if (!fj_heap_open()) {
        fj_task_t *t = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
        if (!t)
            dsm_fatal("out of memory for a task at %s", where);
        t->from_libc = 1;
        return t;
    }
    int cls = size_class(bytes);
    if (cls >= 0) {
        bytes = (size_t)(cls + 1) * 64;
        void *b = me->cache[cls];
        if (b) {
            me->cache[cls] = *(void **)b;
            me->cached[cls]--;
            return b;
        }
    }
    fj_task_t *t = dsm_aligned_alloc(64, bytes);
    if (!t)
        dsm_fatal("out of sharable memory for a task (%zu bytes) at %s",
                  bytes, where);
    t->from_libc = 0;
    return t;
}

static void block_free(fj_task_t *t)
{
    t->magic = 0;
    if (t->from_libc) {
        free(t);
        return;
    }
    if (!fj_heap_open())
        return;             /* shut down: the heap is gone with the job */
    fj_task_thread_t *me = fj_task_me();
    int cls = size_class(t->block_bytes);
    if (cls >= 0 && me->cached[cls] < CACHE_DEPTH) {
        *(void **)t = me->cache[cls];
        me->cache[cls] = t;
        me->cached[cls]++;
        return;
    }
    dsm_free(t);
}

static fj_task_t *task_checked(void *payload, const char *what)
{
    fj_task_t *t = fj_task_of(payload);
    if (!payload || t->magic != FJ_TASK_MAGIC || t->implicit)
        dsm_fatal("%s: %p is not a task of this node", what, payload);
    return t;
}

/* ---- allocation ------------------------------------------------------------- */

static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

void *fj_task_alloc(unsigned flags, size_t payload_bytes, size_t head_bytes,
                    size_t shareds_bytes, fj_task_entry_t entry,
                    void **shareds, const char *where)
{
    fj_task_thread_t *me = fj_task_me();
    if (payload_bytes > UINT32_MAX || shareds_bytes > UINT32_MAX)
        dsm_fatal("the task at %s is too large (%zu + %zu bytes)", where,
                  payload_bytes, shareds_bytes);
    size_t bytes = offsetof(fj_task_t, payload) + round16(payload_bytes) +
                   shareds_bytes;
    fj_task_t *t = block_alloc(me, bytes, where);
    int from_libc = t->from_libc;
    memset(t, 0, offsetof(fj_task_t, payload));
    t->magic = FJ_TASK_MAGIC;
    t->from_libc = (uint8_t)from_libc;
    t->flags = (uint16_t)flags;
    /* every descendant of a final task is final (and included) */
    if (me->current->flags & FJ_TASK_FINAL)
        t->flags |= FJ_TASK_FINAL;
    t->refs = 1;
    t->node = fj.rank;
    t->entry = entry;
    t->payload_bytes = (uint32_t)payload_bytes;
    t->shareds_bytes = (uint32_t)shareds_bytes;
    t->block_bytes = bytes;
    t->where = where;
    memset(t->payload, 0, head_bytes < payload_bytes ? head_bytes
                                                     : payload_bytes);
    *shareds = shareds_bytes ? t->payload + round16(payload_bytes) : NULL;
    return t->payload;
}

void *fj_task_clone(void *payload, void **shareds)
{
    fj_task_t *src = task_checked(payload, "taskloop");
    void *copy = fj_task_alloc(src->flags, src->payload_bytes, 0,
                               src->shareds_bytes, src->entry, shareds,
                               src->where);
    fj_task_t *t = fj_task_of(copy);
    t->priority = src->priority;
    t->fini = src->fini;
    memcpy(t->payload, src->payload,
           round16(src->payload_bytes) + src->shareds_bytes);
    return copy;
}

unsigned fj_task_flags(void *payload)
{
    return task_checked(payload, "task")->flags;
}

void fj_task_discard(void *payload)
{
    fj_task_t *t = task_checked(payload, "taskloop");
    if (t->fini)
        t->fini(fj_self()->gtid, t->payload);
    block_free(t);
}

void fj_task_set_fini(void *payload, fj_task_entry_t fini)
{
    task_checked(payload, "task")->fini = fini;
}

/* ---- priorities --------------------------------------------------------------- */

static int max_priority;
static pthread_once_t priority_once = PTHREAD_ONCE_INIT;

static void priority_load(void)
{
    const char *v = getenv("OMP_MAX_TASK_PRIORITY");
    if (!v)
        return;
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 0 || n > INT32_MAX)
        dsm_fatal("OMP_MAX_TASK_PRIORITY=%s: expected a number from 0 to %d",
                  v, INT32_MAX);
    max_priority = (int)n;
}

int fj_task_max_priority(void)
{
    pthread_once(&priority_once, priority_load);
    return max_priority;
}

void fj_task_set_priority(void *payload, int priority)
{
    fj_task_t *t = task_checked(payload, "task priority");
    int max = fj_task_max_priority();
    t->priority = priority < 0 ? 0 : priority > max ? max : priority;
}

/* ---- execution ------------------------------------------------------------------ */

/* Account a new child of the current task: parent, taskgroup, pool. */
static void attach(fj_task_thread_t *me, fj_task_t *t)
{
    fj_task_t *cur = me->current;
    t->parent = cur;
    if (!cur->implicit)
        atomic_fetch_add(&cur->refs, 1);
    atomic_fetch_add(&cur->children, 1);
    t->level = cur->level + 1;
    fj_taskgroup_t *g = cur->group;
    t->member_of = g;
    t->group = g;
    if (g) {
        atomic_fetch_add(&g->count, 1);
        atomic_fetch_add(&g->refs, 1);
    }
    t->pool = fj_task_context_pool(me);
    atomic_fetch_add(&t->pool->unfinished, 1);
}

enum part { PART_DONE, PART_AGAIN, PART_BLOCKED };

/* The end of a task's execution (its entry returned for good). */
static void finish(fj_task_t *t)
{
    if (t->fini)
        t->fini(fj_self()->gtid, t->payload);
    if (t->locked) {
        fj_deps_unlock(t);
        t->locked = 0;
    }
    if (t->deps)
        fj_deps_clear(t);
    if (atomic_load(&t->event) != FJ_EVENT_NONE) {
        int32_t armed = FJ_EVENT_ARMED;
        if (atomic_compare_exchange_strong(&t->event, &armed,
                                           FJ_EVENT_WAITING))
            return;         /* omp_fulfill_event completes it */
        atomic_store(&t->event, FJ_EVENT_DONE);
    }
    fj_task_complete(t);
}

/* Run the task's entry once (one part of an untied task). */
static enum part run_part(fj_task_thread_t *me, fj_task_t *t)
{
    if (t->depnode && !t->locked) {
        if (!fj_deps_lock(t))
            return PART_BLOCKED;
        t->locked = 1;
    }
    if (!t->started) {
        t->started = 1;
        /* its taskgroup or region was cancelled before it started */
        if (fj_cancel_task_discarded(t)) {
            finish(t);
            return PART_DONE;
        }
    }
    fj_task_t *prev = me->current;
    t->running = 1;
    me->current = t;
    t->entry(fj_self()->gtid, t->payload);
    me->current = prev;
    t->running = 0;
    if (t->requeue) {
        t->requeue = 0;
        return PART_AGAIN;
    }
    finish(t);
    return PART_DONE;
}

int fj_task_execute(fj_task_t *t)
{
    fj_task_thread_t *me = fj_task_me();
    switch (run_part(me, t)) {
    case PART_BLOCKED:
        fj_pool_push_blocked(t->pool, t);
        return 0;
    case PART_AGAIN:
        /* the rest of an untied task: any thread may continue it */
        fj_pool_push(t->pool, t, 1);
        return 1;
    default:
        return 1;
    }
}

/* Run a task here and now, every part of it (included and undeferred
 * tasks).  A mutexinoutset lock held by a sibling running elsewhere is
 * waited for by running other tasks. */
static void run_here(fj_task_thread_t *me, fj_task_t *t)
{
    for (;;) {
        enum part p = run_part(me, t);
        if (p == PART_DONE)
            return;
        if (p == PART_BLOCKED && !fj_pool_run_one(me))
            dsm_cpu_relax();
    }
}

void fj_task_submit(void *payload, int ndeps, const fj_dep_t *deps)
{
    fj_task_thread_t *me = fj_task_me();
    fj_task_t *t = task_checked(payload, "__kmpc_omp_task");
    if (t == me->current && t->running) {
        t->requeue = 1;     /* an untied task at a scheduling point */
        return;
    }
    attach(me, t);
    fj_task_t *parent = t->parent;
    if (parent->flags & FJ_TASK_FINAL) {
        /* included: its earlier siblings ran before it, in order, but a
         * detached one may not be complete */
        if (ndeps > 0)
            fj_deps_wait(me, parent, ndeps, deps);
        run_here(me, t);
        return;
    }
    if (ndeps > 0 && !fj_deps_register(parent, t, ndeps, deps))
        return;             /* its last predecessor queues it */
    if (!t->pool->team || fj_pool_queued_here(t->pool) >= THROTTLE)
        run_here(me, t);    /* alone, or far ahead of the consumers */
    else
        fj_pool_push(t->pool, t, 1);
}

void fj_task_run_undeferred(void *payload)
{
    fj_task_thread_t *me = fj_task_me();
    fj_task_t *t = task_checked(payload, "taskloop");
    attach(me, t);
    run_here(me, t);
}

void fj_task_if0_begin(void *payload)
{
    fj_task_thread_t *me = fj_task_me();
    fj_task_t *t = task_checked(payload, "__kmpc_omp_task_begin_if0");
    attach(me, t);
    t->resume = me->current;
    t->started = 1;         /* the compiler's code runs it, never discarded */
    t->running = 1;
    me->current = t;
}

void fj_task_if0_complete(void *payload)
{
    fj_task_thread_t *me = fj_task_me();
    fj_task_t *t = task_checked(payload, "__kmpc_omp_task_complete_if0");
    me->current = t->resume;
    t->running = 0;
    /* an untied if(0) task handed itself back at its first scheduling
     * point: the generating task waits until the whole task has run */
    if (t->requeue) {
        t->requeue = 0;
        run_here(me, t);
        return;
    }
    finish(t);
}

void fj_task_wait_deps(int ndeps, const fj_dep_t *deps)
{
    fj_task_thread_t *me = fj_task_me();
    if (ndeps > 0 && me->current->deps)
        fj_deps_wait(me, me->current, ndeps, deps);
}

/* ---- completion ------------------------------------------------------------------ */

void fj_task_complete(fj_task_t *t)
{
    if (t->depnode)
        fj_deps_release(t);
    fj_task_t *parent = t->parent;
    fj_taskgroup_t *g = t->member_of;
    fj_task_pool_t *pool = t->pool;
    /* the parent stays allocated while t holds its reference */
    if (atomic_fetch_sub(&parent->children, 1) == 1) {
        fj_bell_t *b = atomic_load(&parent->waiter);
        if (b)
            fj_bell_ring(b);
    }
    if (g) {
        if (atomic_fetch_sub(&g->count, 1) == 1) {
            fj_bell_t *b = atomic_load(&g->waiter);
            if (b)
                fj_bell_ring(b);
        }
        fj_taskgroup_unref(g);
    }
    if (atomic_fetch_sub(&pool->unfinished, 1) == 1 &&
        atomic_load(&pool->zero_waiters) > 0)
        fj_pool_wake_all(pool);
    fj_task_unref(t);
}

void fj_task_unref(fj_task_t *t)
{
    while (t && !t->implicit) {
        if (atomic_fetch_sub(&t->refs, 1) != 1)
            return;
        fj_task_t *parent = t->parent;
        block_free(t);
        t = parent;
    }
}

/* ---- taskwait, taskyield, taskgroup ------------------------------------------------ */

/* The task suspended at a scheduling point constrains what this thread
 * may start meanwhile.  An untied one too: it is suspended inside one of
 * its parts, on this thread's stack, and cannot move until everything
 * started above it returned (an ancestor run above it that waits for it
 * would never return). */
static fj_task_t *suspend(fj_task_thread_t *me)
{
    fj_task_t *root = me->tied_root;
    me->tied_root = me->current;
    return root;
}

static int no_children(void *arg)
{
    return atomic_load(&((fj_task_t *)arg)->children) == 0;
}

void fj_taskwait(void)
{
    fj_task_thread_t *me = fj_task_me();
    fj_task_t *cur = me->current;
    if (atomic_load(&cur->children) == 0)
        return;
    fj_task_t *root = suspend(me);
    fj_pool_wait(me, no_children, cur, &cur->waiter, 0);
    me->tied_root = root;
}

void fj_taskyield(void)
{
    fj_task_thread_t *me = fj_task_me();
    fj_task_t *root = suspend(me);
    fj_pool_run_one(me);
    me->tied_root = root;
}

void fj_taskgroup_begin(void)
{
    fj_task_thread_t *me = fj_task_me();
    fj_taskgroup_t *g = calloc(1, sizeof *g);
    if (!g)
        dsm_fatal("out of memory for a taskgroup");
    g->refs = 1;
    g->outer = me->current->group;
    me->current->group = g;
}

static int group_empty(void *arg)
{
    return atomic_load(&((fj_taskgroup_t *)arg)->count) == 0;
}

/* Wait for the innermost taskgroup's tasks; it stays in force. */
static fj_taskgroup_t *group_wait(fj_task_thread_t *me)
{
    fj_task_t *cur = me->current;
    fj_taskgroup_t *g = cur->group;
    if (!g || (cur->member_of == g && !cur->implicit))
        dsm_fatal("end of a taskgroup that this task did not begin");
    if (atomic_load(&g->count) > 0) {
        fj_task_t *root = suspend(me);
        fj_pool_wait(me, group_empty, g, &g->waiter, 0);
        me->tied_root = root;
    }
    return g;
}

void fj_taskgroup_end(void)
{
    fj_task_thread_t *me = fj_task_me();
    fj_taskgroup_t *g = group_wait(me);
    if (g->red) {
        fj_taskred_finish(g->red);
        g->red = NULL;
    }
    me->current->group = g->outer;
    fj_taskgroup_unref(g);
}

fj_taskgroup_t *fj_taskgroup_wait_current(void)
{
    return group_wait(fj_task_me());
}

void fj_taskgroup_pop(fj_taskgroup_t *g)
{
    fj_task_thread_t *me = fj_task_me();
    me->current->group = g->outer;
    fj_taskgroup_unref(g);
}

void fj_taskgroup_unref(fj_taskgroup_t *g)
{
    if (atomic_fetch_sub(&g->refs, 1) == 1)
        free(g);
}

/* ---- detach ------------------------------------------------------------------------ */

void *fj_task_event(void *payload, const char *where)
{
    fj_task_t *t = task_checked(payload, "task detach");
    int32_t none = FJ_EVENT_NONE;
    if (!atomic_compare_exchange_strong(&t->event, &none, FJ_EVENT_ARMED))
        dsm_fatal("the task at %s asked for a second completion event",
                  where);
    return t;
}

void fj_task_fulfill(void *event)
{
    fj_task_t *t = event;
    if (!t || t->magic != FJ_TASK_MAGIC || t->implicit)
        dsm_fatal("omp_fulfill_event: %p is not an event handle of a "
                  "detached task of this node", event);
    if (t->node != fj.rank)
        dsm_fatal("dsmomp: omp_fulfill_event for a task of another node is "
                  "not supported (called on node %d for the task made on "
                  "node %d at %s): fulfill an event on the node that made "
                  "its task", fj.rank, t->node, t->where);
    for (;;) {
        int32_t s = atomic_load(&t->event);
        if (s == FJ_EVENT_ARMED) {
            if (atomic_compare_exchange_strong(&t->event, &s,
                                               FJ_EVENT_FULFILLED_EARLY))
                return;     /* its executor completes it */
        } else if (s == FJ_EVENT_WAITING) {
            if (atomic_compare_exchange_strong(&t->event, &s,
                                               FJ_EVENT_DONE)) {
                fj_task_complete(t);
                return;
            }
        } else {
            dsm_fatal("omp_fulfill_event: the event of the task at %s was "
                      "already fulfilled", t->where);
        }
    }
}

/* ---- queries ------------------------------------------------------------------------ */

int fj_in_final(void)
{
    fj_task_thread_t *me = me_tls;
    return me && (me->current->flags & FJ_TASK_FINAL) != 0;
}

int fj_task_context_threads(void)
{
    fj_task_pool_t *pool = fj_task_context_pool(fj_task_me());
    return pool->team ? pool->members : 1;
}
