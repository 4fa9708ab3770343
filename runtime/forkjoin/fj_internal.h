/*
 * fj_internal.h - state shared by the fork-join modules: the node, its
 * view of the current team, nested teams inside the node, each thread's
 * state, the wire format of the fork message and the layout of the
 * CONTROL words.
 *
 * Layer: forkjoin (internal header; not for the shim).
 * Threads: fj (the node) is written at start-up and by the thread that
 * sets up a region; a team is written by its node's leader (a nested
 * team: by its master) before its members are woken and read by the
 * members; an fj_thread belongs to its thread (a nested team's master
 * writes an idle extra thread's assignment before waking it).
 */
#ifndef FJ_INTERNAL_H
#define FJ_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "fj_cancel.h"
#include "forkjoin.h"
#include "sys_sync.h"

/* Active messages of this layer: fork-join's range of transport.h
 * (DSM_TP_AM_FJ_FIRST..DSM_TP_AM_FJ_LAST); dsm_tp_am_register refuses
 * any other. */
enum fj_am_id {
    FJ_AM_FORK = 20,     /* node 0 -> all: start a region */
    FJ_AM_EXIT = 21,     /* node 0 -> all: finish with a status */
    FJ_AM_REDUCE = 22,   /* all -> node 0: a reduction's partial result */
    FJ_AM_SETTLE = 23,   /* node 0 -> all: apply the last join's home moves */
    FJ_AM_PULL = 24,     /* node 0 -> one: send the partial result kept */
    FJ_AM_CANCEL = 25,   /* any -> the team's nodes: a construct cancelled */
    FJ_AM_DOACROSS = 26, /* any -> any: a doacross dependence asked for or
                            answered (fj_doacross.c) */
};

#define FJ_LOOP_SLOTS  8     /* dispatch loops that may be open at once */
#define FJ_MAX_LEVELS  8     /* nesting levels with loop state (0: outside
                                any region) */
#define FJ_RED_ENTRIES 4     /* reductions a node may combine at once */

typedef struct fj_sched {
    int kind;                /* FJ_SCHED_*, | FJ_SCHED_MONOTONIC */
    int chunk;               /* 0: static's balanced blocks; dynamic and
                                guided: at least 1; auto: 1 (unused) */
} fj_sched_t;

/* Internal control variables of a data environment. */
typedef struct fj_icv {
    int nthreads;
    int dynamic;
    fj_sched_t sched;
    int max_active_levels;   /* regions inside this many active ones are
                                serialised */
} fj_icv_t;

/* Bytes of node 0's write notices a FORK carries, at most (more make the
 * receivers invalidate every page). */
#define FJ_HANDOFF_BYTES 16384

/* FORK: the region as node 0 starts it.  args[] holds argc entries; then
 * come handoff_bytes of node 0's write notices (dsm_coh_handoff_export). */
typedef struct fj_fork_msg {
    uint64_t region;         /* 1, 2, ... */
    uint64_t microtask;      /* same address everywhere (no ASLR) */
    uint64_t loop_base;      /* slot loops of earlier regions */
    uint64_t single_base;    /* single constructs of earlier regions */
    int32_t nthreads;        /* team size */
    int32_t argc;
    int32_t icv_nthreads, icv_dynamic, sched_kind, sched_chunk;
    uint32_t handoff_bytes;
    int32_t level;           /* omp_get_level in the region: 1, more when
                                node 0's master forks inside serialised
                                regions */
    int32_t icv_max_active_levels;
    int32_t team_num;        /* in a teams region: the team, of num_teams */
    int32_t num_teams;       /* 1 outside teams regions */
    int32_t pad;
    uint64_t args[FJ_MAX_ARGS];
} fj_fork_msg_t;

typedef struct fj_exit_msg {
    int32_t status;
    int32_t pad;
} fj_exit_msg_t;

/* CONTROL words.  Every node reserves this layout; the team-wide words are
 * node 0's copy, join_word is each node's own. */
typedef struct fj_loop_slot {
    uint64_t next;           /* chunks (dynamic) or chunk index (guided) */
    uint64_t done;           /* nodes finished with the loop */
    uint64_t gen;            /* times the slot was recycled */
    uint64_t ord;            /* next iteration allowed in ordered */
    uint64_t pad[4];
} fj_loop_slot_t;

typedef struct fj_control {
    uint64_t copyprivate;    /* the single thread's pointer list */
    uint64_t join_word;      /* proxy nodes: (region << 32) | barriers */
    uint64_t red_done;       /* node 0: (region << 32) | the last reduction
                                whose partial results it combined */
    uint64_t cancel_state;   /* node 0: how the region ended, with
                                cancellation enabled (fj_cancel.c) */
    uint64_t cancel_final;   /* node 0: (region << 32) | the cluster barrier
                                after which a cancelled region ends */
    uint64_t pad[3];
    fj_loop_slot_t loops[FJ_LOOP_SLOTS];
} fj_control_t;

#define FJ_WORD(field) offsetof(fj_control_t, field)

/* A node's share of one dispatch loop instance; the team's loop mutex
 * guards it. */
typedef struct fj_loop_local {
    uint64_t instance;       /* instance + 1 while in use, 0 when free */
    int ready;               /* the slot is ours (generation checked) */
    int finished;            /* local members that saw the end */
    int exhausted;           /* the team counter ran past the end */
    /* dynamic: the node's block of chunks, and the counter as last seen */
    uint64_t block_next, block_end, claimed;
    /* guided: chunk start iterations computed so far, then equal chunks
     * from chunk tail_index on */
    uint64_t *bounds;
    size_t nbounds, cap;
    int tail;
    uint64_t tail_index, tail_start, tail_size;
} fj_loop_local_t;

/* A thread's state of the loop it executes, one per nesting level. */
typedef struct fj_loop {
    int kind;                /* FJ_SCHED_* after resolving runtime/auto */
    int ordered;
    int shared;              /* uses a loop slot and the team counters */
    int done;
    uint64_t instance;
    uint64_t trip, chunk;    /* iterations; iterations per chunk */
    int64_t lower, incr;
    uint64_t handed;         /* static: chunks handed out so far */
    fj_loop_local_t *local;
    /* ordered: this thread's current iteration */
    uint64_t ord_cur;
    int ord_bumped;          /* the current iteration passed its turn */
    uint64_t ord_known;      /* the team counter, as last seen */
} fj_loop_t;

/* A reduction being combined inside a node; lock guards seq and data, and
 * the combining into data. */
typedef struct fj_red_entry {
    dsm_mutex_t lock;
    _Atomic uint32_t count;  /* members combined so far */
    uint64_t seq;            /* the member's reduction number; 0: free */
    void *data;              /* the holder's private copies */
} fj_red_entry_t;

/* A team: one node's view of the region spanning the cluster (fj.team),
 * or a team inside one node (an active nested region, fj_nested.c). */
typedef struct fj_team {
    uint64_t region;
    fj_microtask_t microtask;
    int argc;
    void *args[FJ_MAX_ARGS]; /* NULL from argc on */
    int nthreads;            /* team size */
    int nodes;               /* nodes holding team threads */
    int first;               /* thread number of local thread 0 */
    int local_count;         /* team threads on this node */
    uint64_t loop_base, single_base;
    fj_icv_t icv;

    /* nesting: the team's level (omp_get_level inside it), its active
     * level, and the team of the thread that forked it (NULL for the
     * cluster's team) with that thread's number there and its level;
     * levels between parent_level and level were serialised */
    int level, active_level;
    /* the league it belongs to (omp_get_team_num, omp_get_num_teams):
     * team 0 of 1 outside teams regions */
    int team_num, num_teams;
    struct fj_team *parent;
    int parent_level, parent_num;
    /* the team-wide words: NULL for node 0's CONTROL copy (the cluster's
     * team), the team's own for a team inside one node (fj_words.c) */
    fj_control_t *words;
    /* members of a team inside one node that finished the region */
    _Atomic uint32_t done;
    /* its explicit tasks (fj_task_pool.c): the node's team pool for the
     * cluster's team, a pool of its own for a team inside one node */
    struct fj_task_pool *tasks;

    /* barrier, node-local part (waited for with the node's tasks) */
    dsm_local_barrier_t bar;

    /* single: the last instance this node decided */
    uint64_t single_decided;

    /* cancellation (fj_cancel.c) */
    fj_cancel_team_t cancel;

    /* reductions combined inside the node */
    fj_red_entry_t red[FJ_RED_ENTRIES];

    /* dispatch loops */
    pthread_mutex_t loop_mutex;
    pthread_cond_t loop_cond;
    fj_loop_local_t loops[FJ_LOOP_SLOTS];
} fj_team_t;

typedef struct fj_thread {
    _Atomic uint32_t go;     /* pool threads: bumped to start a region */
    int local;               /* index within the node; 0: its main thread */
    int gtid;                /* rank * threads + local */
    fj_team_t *team;         /* the active region, NULL outside */
    int num;                 /* thread number in the team */
    int serial;              /* serialised regions nested inside */
    int pushed;              /* num_threads for the next fork, 0: none */
    int in_teams;            /* in a teams region's initial thread */
    int team_num, num_teams; /* there: its team, of num_teams (fj_teams.c) */
    int red_locked;          /* holds a reduction's cluster lock */
    /* constructs met in the current region, in the order every member
     * meets them */
    uint64_t loops, loops_safe, singles, reductions, barriers, doacross;
    uint64_t reductions_safe;  /* reductions met before the last barrier */
    /* the barrier construct this thread is in (fj_barrier_at), which
     * labels the node's next epoch for the DSM's prefetch; NULL: none */
    const void *barrier_label;
    fj_icv_t icv;
    fj_loop_t loop[FJ_MAX_LEVELS];   /* by omp_get_level */

    /* nested teams (fj_nested.c): a worker's next team and its number
     * there; the teams this thread forked, by their level */
    fj_team_t *assigned;
    int assigned_num;
    _Atomic uint32_t idle_asleep;    /* an idle extra thread sleeps */
    fj_team_t *inner[FJ_MAX_LEVELS];

    /* threadprivate data across nodes (fj_tls.c): this thread's static TLS
     * block of the executable (0: not looked up yet), and its sharable
     * snapshot and pointer list */
    uintptr_t tls_block;
    unsigned char *tls_snapshot;
    void **tls_list;
    size_t tls_list_cap;
} fj_thread_t;

/* The node. */
typedef struct fj_node {
    int rank, size;
    int threads;             /* threads per node (DSM_THREADS) */
    int started;
    int heap_open;           /* the sharable heap serves the program's
                                malloc: started and not yet shut down */
    int spin;                /* pause iterations before a futex sleep */
    uint64_t mail_poll_ns;   /* between regions: progress polled first */
    size_t worker_stack;     /* bytes of each worker's sharable stack */
    uint64_t control_off;    /* fj_control_t in the CONTROL segment */
    fj_control_t *control;   /* this node's copy */
    fj_icv_t icv_default;

    fj_team_t team;
    fj_thread_t **thread;    /* [threads] */

    /* pool members that finished the current region */
    _Atomic uint32_t pool_done;

    /* node 0: bookkeeping across regions */
    uint64_t region;
    uint64_t loop_base, single_base;
} fj_node_t;

extern fj_node_t fj;

/* This thread's state: NULL before it joined the runtime. */
fj_thread_t *fj_self_or_null(void);
/* This thread's state; a thread the runtime did not create gets one that
 * only ever runs serialised regions. */
fj_thread_t *fj_self(void);
void fj_set_self(fj_thread_t *self);
fj_thread_t *fj_thread_create(int local);

/* Thread ids (gtid): node * threads + local for the node's threads; the
 * extra threads of nested teams (at most FJ_NEST_THREADS per node) come
 * after every node's threads. */
#define FJ_NEST_THREADS 64

/* Team layout. */
static inline int fj_layout_count(int nthreads, int nodes, int node)
{
    return nthreads / nodes + (node < nthreads % nodes);
}

static inline int fj_layout_first(int nthreads, int nodes, int node)
{
    int extra = nthreads % nodes;
    return node * (nthreads / nodes) + (node < extra ? node : extra);
}

/* True when the calling thread executes alone: outside any region, or in
 * a serialised one. */
static inline int fj_alone(const fj_thread_t *self)
{
    return !self->team || self->serial > 0;
}

/* Loop state of the calling thread's current level. */
fj_loop_t *fj_loop_here(fj_thread_t *self);

/* The calling thread's omp_get_level / omp_get_active_level. */
static inline int fj_level_of(const fj_thread_t *self)
{
    return (self->team ? self->team->level : 0) + self->serial;
}

static inline int fj_active_level_of(const fj_thread_t *self)
{
    return self->team ? self->team->active_level : 0;
}

/* fj_icv.c: a teams region's contention group: thread-limit-var lowered
 * to limit (if positive and lower) until restored; returns the value to
 * restore. */
int fj_icv_limit_threads(int limit);
void fj_icv_restore_thread_limit(int saved);

/* Active levels dsmomp supports: every level has its loop state. */
#define FJ_SUPPORTED_ACTIVE_LEVELS (FJ_MAX_LEVELS - 1)

/* fj_region.c: set up the node's team from a fork message, run a member
 * (num: its number in team), the leader's part of the join, the proxy of
 * a node without members. */
void fj_team_setup(const fj_fork_msg_t *msg);
void fj_member_run(fj_thread_t *self, fj_team_t *team, int num);
void fj_leader_region(fj_thread_t *self);
void fj_call_microtask(fj_microtask_t fn, int32_t *gtid, int32_t *btid,
                       void *const *args);

/* The per-region state of a thread that forks a nested team, kept while
 * it runs there (fj_nested.c). */
typedef struct fj_saved_region {
    fj_team_t *team;
    int num, serial;
    uint64_t loops, loops_safe, singles, reductions, barriers, doacross;
    uint64_t reductions_safe;
    fj_icv_t icv;
} fj_saved_region_t;
void fj_region_save(const fj_thread_t *self, fj_saved_region_t *saved);
void fj_region_restore(fj_thread_t *self, const fj_saved_region_t *saved);

/* fj_nested.c: an active region inside a region, on the encountering
 * thread's node.  Returns 0 when no thread could join the team (the
 * caller then runs the region serialised). */
int fj_nested_fork(fj_thread_t *self, fj_microtask_t microtask, int argc,
                   void *const *args, int nthreads);

/* fj_tls.c: threadprivate variables in the executable's thread-local
 * storage, for members on other nodes.  fj_tls_static_bytes: the static
 * TLS every thread's stack must leave room for (all modules).
 * fj_tls_fork_args: node 0's master at a fork; replaces in args[] each
 * pointer into its TLS (copyin's source) by the same variable in a
 * sharable snapshot; returns how many it replaced.
 * fj_tls_list: the single thread of copyprivate; returns list itself when
 * every pointer is sharable, else a sharable copy of the list with the
 * thread's TLS variables replaced by their snapshot. */
size_t fj_tls_static_bytes(void);
int fj_tls_fork_args(fj_thread_t *self, uint64_t *args, int argc,
                     const char *where);
void *fj_tls_list(fj_thread_t *self, void *list, size_t list_bytes);
/* Nodes other than 0: wait for regions until node 0 says exit. */
void fj_worker_loop(void *unused);

/* fj_pool.c: the node's pool of worker threads.  fj_thread_start: start
 * a runtime thread that runs fn(self) on a sharable stack of its own
 * (ends the job naming the failed call). */
void fj_thread_start(fj_thread_t *self, void (*fn)(void *),
                     const char *what);
void fj_pool_start(void);
void fj_pool_wake(void);
void fj_pool_wait_done(int members);

/* fj_barrier.c: the team barrier (local part, then one dsm_barrier per
 * node); fj_rtstack.c: that dsm_barrier, and the one-way join at the end
 * of a region that every node takes part in (dsm_coh_join). */
void fj_team_barrier(fj_thread_t *self);
void fj_global_barrier(void);
void fj_global_join(void);

/* fj_exit.c: the exit protocol.  fj_exit_node: EXIT came (node 0 keeps
 * the status; this node exits 0 after the shut-down). */
void fj_exit_register(void);
__attribute__((noreturn)) void fj_exit_node(void);

/* fj_icv.c: environment (OMP_*) and defaults. */
dsm_status_t fj_icv_load(int total_threads);

/* fj_altstack.c: faults on sharable stacks are handled on a private
 * alternate stack: once per process, and per thread. */
dsm_status_t fj_altstack_thread(void);

/* fj_rtstack.c: the private stack DSM synchronisation runs on. */
dsm_status_t fj_rtstack_thread(void);
dsm_status_t fj_finalize(void);

/* fj_window.c: the program's writable data ([.data, .bss] pages). */
dsm_status_t fj_program_window(uintptr_t *base, size_t *len);

#endif
