/*
 * fj_task.h - the task modules' shared state: descriptors, pools (a
 * node's per-thread queues), bells (how a waiting thread sleeps and is
 * woken), dependence nodes, taskgroups; and the hooks other fork-join
 * modules call at barriers, at the start and end of regions and while idle.
 *
 * Layer: forkjoin (internal header).  Modules: fj_task.c (life of a task,
 * taskwait, taskgroup, detach), fj_task_pool.c (queues, stealing, waiting,
 * barriers), fj_task_deps.c (dependences), fj_taskred.c (task reductions).
 * Everything here runs in application threads.
 *
 * Ownership: a task lives on the node that created it.  Its parent, pool
 * and taskgroup outlive it (a task holds a reference on its parent; a
 * taskgroup counts its members; pools live as long as the process).
 */
#ifndef FJ_TASK_H
#define FJ_TASK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "fj_internal.h"
#include "forkjoin_task.h"

typedef struct fj_task fj_task_t;
typedef struct fj_task_pool fj_task_pool_t;
typedef struct fj_taskgroup fj_taskgroup_t;
typedef struct fj_depnode fj_depnode_t;
typedef struct fj_dephash fj_dephash_t;
typedef struct fj_taskred fj_taskred_t;

/* ---- bells: one per thread that waits for tasks ----------------------- */

/* A thread that waits sleeps on its bell's word; ringing bumps the word,
 * so a ring between the sleeper's last look and its futex call is not
 * lost.  Bells are never freed: a ring may come late. */
typedef struct fj_bell {
    _Atomic uint32_t word;
    _Atomic uint32_t asleep;    /* FJ_BELL_* */
    char pad[56];
} fj_bell_t;

enum { FJ_BELL_AWAKE = 0, FJ_BELL_FREE = 1, FJ_BELL_CONSTRAINED = 2 };

void fj_bell_ring(fj_bell_t *bell);

/* ---- descriptors ------------------------------------------------------- */

/* Detach states. */
enum { FJ_EVENT_NONE, FJ_EVENT_ARMED, FJ_EVENT_FULFILLED_EARLY,
       FJ_EVENT_WAITING, FJ_EVENT_DONE };

struct fj_task {
    uint32_t magic;              /* FJ_TASK_MAGIC while allocated */
    uint16_t flags;              /* FJ_TASK_* */
    uint8_t implicit;            /* a thread's implicit task (no block) */
    uint8_t from_libc;           /* block from malloc (before start-up) */
    uint8_t requeue;             /* untied: handed back by its own entry */
    uint8_t running;
    uint8_t locked;              /* holds its mutexinoutset locks */
    uint8_t started;             /* its entry was called (or it was
                                    discarded: fj_cancel.c) */
    _Atomic int32_t event;       /* FJ_EVENT_* */
    int32_t level;               /* 0: implicit; a child is one deeper */
    int32_t priority;
    int32_t node;                /* the node whose pool runs it */
    _Atomic int32_t refs;        /* 1 until complete, +1 per child alive */
    _Atomic int32_t children;    /* children not complete (taskwait) */
    fj_bell_t *_Atomic waiter;   /* the thread in taskwait for children */
    fj_task_t *parent;           /* NULL for implicit tasks */
    fj_task_pool_t *pool;        /* where it is queued when ready */
    fj_taskgroup_t *member_of;   /* the taskgroup it counts in */
    fj_taskgroup_t *group;       /* innermost taskgroup for its children */
    fj_dephash_t *deps;          /* dependences among its children */
    fj_depnode_t *depnode;       /* its own, when it has dependences */
    fj_task_t *next;             /* shared queue link */
    fj_task_t *resume;           /* if(0): the task to resume afterwards */
    fj_task_entry_t entry;
    fj_task_entry_t fini;        /* NULL, or run once when finished */
    uint32_t payload_bytes, shareds_bytes;
    size_t block_bytes;
    const char *where;
    _Alignas(64) unsigned char payload[];
};

#define FJ_TASK_MAGIC 0x7a5c0b1eu

static inline fj_task_t *fj_task_of(void *payload)
{
    return (fj_task_t *)((char *)payload - offsetof(fj_task_t, payload));
}

/* Run a ready task in this thread (it was taken from a queue).  Returns 0
 * when it could not start (a mutexinoutset lock is held elsewhere: the
 * task went back to its pool). */
int fj_task_execute(fj_task_t *t);
/* The task is complete: release its successors, tell its parent, its
 * taskgroup and its pool, drop its reference. */
void fj_task_complete(fj_task_t *t);
void fj_task_unref(fj_task_t *t);

/* ---- per-thread state --------------------------------------------------- */

typedef struct fj_task_thread {
    fj_task_t *current;          /* the task running here (implicit too) */
    fj_task_t *tied_root;        /* innermost task (untied too) suspended
                                    here at a scheduling point; NULL: none
                                    (TSC) */
    fj_bell_t *bell;
    int bound;                   /* bell is final (set after start-up) */
    fj_task_pool_t *alone;       /* tasks made outside an active team */
    fj_task_t *implicit;
    uint64_t modifier_seq[2];    /* reduction modifiers met, by is_ws */
    /* descriptor blocks kept for reuse, by size class */
    void *cache[16];
    uint16_t cached[16];
} fj_task_thread_t;

fj_task_thread_t *fj_task_me(void);
/* NULL for a thread that never met a task. */
fj_task_thread_t *fj_task_me_or_null(void);
/* The pool the calling thread's new tasks go to, and whose tasks it may
 * run: the node's team pool for a member of an active team, else its own. */
fj_task_pool_t *fj_task_context_pool(fj_task_thread_t *me);

/* ---- pools --------------------------------------------------------------- */

typedef struct fj_deque {
    dsm_mutex_t lock;
    _Atomic uint32_t count;      /* tasks in it (a hint without the lock) */
    _Atomic uint32_t pushes;     /* tasks ever pushed (see fj_pool_wait) */
    uint32_t head, tail, mask;
    fj_task_t **slot;
    char pad[32];
} fj_deque_t;

/* Fields written at different rates sit on cache lines of their own:
 * waiting threads poll unfinished, which a region's start must not
 * disturb, and the other way round. */
struct fj_task_pool {
    int team;                    /* the node's team pool (else one thread's) */
    int members;                 /* threads that take from the deques */
    int capacity;
    fj_deque_t *deque;           /* [capacity] */
    fj_bell_t **bell;            /* [capacity]: members' bells */
    /* tasks with a priority, and tasks made ready by other threads */
    _Alignas(64) dsm_mutex_t shared_lock;
    _Atomic uint32_t shared_count;
    _Atomic uint32_t shared_pushes;
    struct fj_prio_bucket *bucket;
    int nbuckets, capbuckets;
    _Alignas(64) _Atomic int64_t unfinished;  /* tasks not complete */
    _Alignas(64) _Atomic int32_t asleep;      /* members on their bells */
    _Atomic int32_t zero_waiters;  /* sleepers waiting for unfinished == 0 */
    /* team pool: the region its tasks belong to */
    _Alignas(64) _Atomic int32_t open;
    _Atomic int32_t helpers;     /* idle members looking for work */
    _Alignas(64) _Atomic int32_t ended;  /* members whose implicit task
                                            returned */
};

/* Queue a ready task.  may_wake: ring a sleeping member. */
void fj_pool_push(fj_task_pool_t *pool, fj_task_t *t, int may_wake);
/* Queue again a task whose mutexinoutset locks were busy. */
void fj_pool_push_blocked(fj_task_pool_t *pool, fj_task_t *t);
/* Take and run one task this thread may run; 1 when it ran one. */
int fj_pool_run_one(fj_task_thread_t *me);
/* Wait (running tasks meanwhile) until done(arg); waiter: where to publish
 * this thread's bell for the one who makes done true (may be NULL);
 * want_zero: done depends on the pool's unfinished count. */
void fj_pool_wait(fj_task_thread_t *me, int (*done)(void *arg), void *arg,
                  fj_bell_t *_Atomic *waiter, int want_zero);
void fj_pool_wake_all(fj_task_pool_t *pool);
fj_task_pool_t *fj_pool_alone_create(fj_bell_t *owner);
fj_task_pool_t *fj_pool_team(void);
/* Queued tasks in the pool: a cheap hint. */
int fj_pool_has_work(fj_task_pool_t *pool);
/* Tasks queued in the calling thread's own deque of pool. */
int fj_pool_queued_here(fj_task_pool_t *pool);

/* ---- dependences (fj_task_deps.c) ------------------------------------- */

/* Register t's dependences among the children of parent; returns 1 when
 * t may run now (else its last predecessor queues it). */
int  fj_deps_register(fj_task_t *parent, fj_task_t *t, int ndeps,
                      const fj_dep_t *deps);
/* Wait for the siblings named by deps (fj_task_wait_deps). */
void fj_deps_wait(fj_task_thread_t *me, fj_task_t *parent, int ndeps,
                  const fj_dep_t *deps);
/* t completed: its successors may run. */
void fj_deps_release(fj_task_t *t);
/* A task's mutexinoutset locks: try to take them all (1: taken). */
int  fj_deps_lock(fj_task_t *t);
void fj_deps_unlock(fj_task_t *t);
/* Forget the dependences among a task's children (none can be added). */
void fj_deps_clear(fj_task_t *parent);

/* ---- taskgroups ----------------------------------------------------------- */

struct fj_taskgroup {
    _Atomic int64_t count;       /* member tasks not complete */
    _Atomic int32_t refs;        /* the owner and each member */
    fj_bell_t *_Atomic waiter;   /* the owner, at the end of the group */
    fj_taskgroup_t *outer;       /* the group in force when it began */
    fj_taskred_t *red;           /* task reductions, or NULL */
    _Atomic int32_t cancelled;   /* cancel taskgroup: tasks not started
                                    are discarded */
};

void fj_taskgroup_unref(fj_taskgroup_t *g);
/* The reduction modifier's end: wait for the innermost taskgroup's tasks
 * (it stays in force), then leave it. */
fj_taskgroup_t *fj_taskgroup_wait_current(void);
void fj_taskgroup_pop(fj_taskgroup_t *g);

/* fj_taskred.c: combine and free a taskgroup's reduction at its end. */
void fj_taskred_finish(fj_taskred_t *red);

/* ---- hooks for the other fork-join modules --------------------------------- */

/* fj_team_setup: a region starts on this node: close the team pool before
 * the team is written, open it for the region after. */
void fj_task_region_close(void);
void fj_task_region_open(fj_team_t *team);
/* fj_nested_fork: a team inside one node starts its region (its own pool,
 * made on first use); fj_member_run: a member starts its implicit task
 * (in a team inside one node, it registers its bell). */
void fj_task_nested_open(fj_team_t *team);
void fj_task_member_begin(fj_thread_t *self);
/* fj_member_run: the member's implicit task returned.  Node thread 0 waits
 * here until every member's has and every task of the region is complete;
 * the others run what is queued and leave (they are called back from the
 * idle wait when tasks come). */
void fj_task_member_end(fj_thread_t *self);
/* fj_team_barrier: arrive at the barrier of generation gen; run tasks
 * until the node's members have arrived and its tasks are complete.
 * Returns 1 to the one thread that must complete the barrier (global part,
 * then fj_task_barrier_release), 0 once another did. */
int  fj_task_barrier_gather(fj_thread_t *self, uint32_t gen);
void fj_task_barrier_release(fj_team_t *team);
/* fj_barrier of a thread alone (serialised region, serial code) and the
 * end of a serialised region: complete the tasks made there. */
void fj_task_alone_drain(void);
/* fj_pool: a pool thread between its regions waits here for *go to
 * differ from seen; meanwhile it helps with the current region's tasks. */
void fj_task_idle_wait(fj_thread_t *self, _Atomic uint32_t *go,
                       uint32_t seen);
/* fj_pool_wake: pool thread `local` was told to start a region. */
void fj_task_idle_ring(int local);

#endif
