/*
 * forkjoin.h - the fork-join layer's interface for the compiler shim: one
 * OpenMP team spanning every thread of every node.
 *
 * Layer: forkjoin (uses base, sys, transport, coherence).  Entry points:
 *   fj_main                      start-up: main on node 0, workers elsewhere
 *   fj_fork, fj_serialized_*     parallel regions (nested ones on the
 *                                encountering thread's node)
 *   fj_teams, fj_teams_run       teams regions (their teams in turn)
 *   fj_barrier, fj_single_*, fj_copyprivate, fj_reduce_*, fj_critical_*
 *   fj_tls_snapshot, fj_tls_restore  threadprivate data in gcc's blocks
 *   fj_static_init, fj_dispatch_*, fj_ordered_*   work-sharing loops
 *   fj_doacross_*                doacross loops (ordered(n), depend)
 *   fj_cancel*                   cancellation
 *   fj_icv_*, fj_thread_num and the other queries
 * Called from application threads: node 0's main thread and the threads
 * the runtime creates; never from signal handlers.  Errors that the OpenMP
 * ABI cannot return end the job with a message (dsm_fatal).
 *
 * Thread numbers: a team of n threads spreads over the nodes as evenly as
 * possible (node k gets n / nodes threads, one more for k < n % nodes), in
 * blocks: node k's threads are numbered from first(k) on.  The global thread
 * id passed to the microtask (the __kmpc gtid) is node * threads + local;
 * the extra threads a node creates for nested teams have ids from
 * nodes * threads on, below fj_thread_id_bound().
 */
#ifndef FORKJOIN_H
#define FORKJOIN_H

#include <stddef.h>
#include <stdint.h>

#include "base_attr.h"
#include "dsm.h"

/* ---- start-up -------------------------------------------------------- */

typedef int (*fj_main_t)(int argc, char **argv, char **envp);

/* Join the job, make the program's writable data sharable, then run main
 * on node 0 (on a sharable stack) and the worker loop on the other nodes.
 * Never returns: every node exits with main's exit status. */
__attribute__((noreturn)) void fj_main(fj_main_t main_fn, int argc,
                                       char **argv, char **envp);
/* Before the program's constructors (C++ programs): open this node's arena
 * of the sharable heap to the program's allocations (fj_heap_open is true
 * from now on) and register the end of the job with exit, so that the
 * destructors the constructors register run while the job is up.  Once,
 * on the main thread, before fj_main. */
void fj_early_heap(void);

/* ---- parallel regions -------------------------------------------------- */

/* A microtask as clang outlines it: (gtid*, bound tid*, captured...). */
typedef void (*fj_microtask_t)(int32_t *gtid, int32_t *btid, ...);

/* Captured arguments a region may pass (clang passes one per variable). */
#define FJ_MAX_ARGS 32

/* Run a parallel region: across every node from node 0's serial code; as
 * a team inside the encountering thread's node from a member of a team,
 * when its max-active-levels ICV allows; else serialised.  where: the
 * source location, for messages. */
void fj_fork(const char *where, fj_microtask_t microtask, int argc,
             void *const *args);
void fj_push_num_threads(int nthreads);
void fj_serialized_begin(void);
void fj_serialized_end(void);
/* Run a teams region (fj_teams.c): num_teams teams (1 if not positive),
 * one after the other on the calling thread, which must be outside any
 * parallel region; thread_limit > 0 bounds the threads of their parallel
 * regions (0: OMP_TEAMS_THREAD_LIMIT, if set).  fj_teams calls a
 * microtask as fj_fork does, fj_teams_run fn(data). */
void fj_teams(const char *where, int num_teams, int thread_limit,
              fj_microtask_t microtask, int argc, void *const *args);
void fj_teams_run(const char *where, int num_teams, int thread_limit,
                  void (*fn)(void *), void *data);

/* ---- synchronisation --------------------------------------------------- */

void fj_barrier(void);
/* The same, naming the construct (an address that is the same on every
 * node and at every execution of it, e.g. its call site): the DSM learns
 * what the code after it fetches and prefetches it the next time
 * (coh_prefetch.c). */
void fj_barrier_at(const void *construct);
/* Non-zero for the one thread that executes the single construct. */
int  fj_single_begin(void);
/* Broadcast the single thread's variables: data is its list of pointers
 * (list_bytes long), copy(dst_list, src_list) copies them. */
void fj_copyprivate(void *data, size_t list_bytes,
                    void (*copy)(void *dst, void *src), int didit);
/* Returns 1 to each thread that must combine into the original variables
 * (between begin and end), 0 to the others.  data: the list of pointers to
 * the calling thread's private copies, nvars of them; sizes: their sizes
 * in bytes, or NULL when the compiler did not tell them (array sections):
 * with sizes, the other nodes send their partial results to node 0 and
 * node 0's thread alone gets 1; without, one thread per node gets 1 and
 * combines under a cluster lock named by key. */
int  fj_reduce_begin(void *data, void (*combine)(void *lhs, void *rhs),
                     const void *key, int nvars, const uint64_t *sizes);
void fj_reduce_end(const void *key);
/* DSM locks and flush for the shim (omp_*_lock, __kmpc_flush): run on the
 * calling thread's private runtime stack (see fj_rtstack.c). */
DSM_MUST_CHECK
dsm_status_t fj_lock_acquire(dsm_lock_t *lock);
DSM_MUST_CHECK
dsm_status_t fj_lock_try(dsm_lock_t *lock);
DSM_MUST_CHECK
dsm_status_t fj_lock_release(dsm_lock_t *lock);
DSM_MUST_CHECK
dsm_status_t fj_flush(void);
/* Cluster locks named by an address that is the same on every node (a
 * global's); reentrant per thread.  what: for error messages. */
void fj_named_lock(const void *key, const char *what);
/* 1 when the lock was free (or this thread holds it), and is now held; 0
 * when another thread holds it. */
int  fj_named_trylock(const void *key, const char *what);
void fj_named_unlock(const void *key, const char *what);
/* Critical sections: named locks. */
void fj_critical_enter(const void *key);
void fj_critical_exit(const void *key);

/* Threadprivate variables in the executable's thread-local storage whose
 * addresses an ABI passes inside a block of data (gcc's region data and
 * copyprivate blocks), for other nodes (fj_tls.c).  fj_tls_snapshot: when
 * p is in the calling thread's block, a sharable copy of the variable at
 * p, written now (other nodes may read it after the caller's next
 * release); NULL otherwise.  fj_tls_restore: when p is in the calling
 * thread's own block, copy the variable at p from such a snapshot and
 * return 1; 0 otherwise. */
void *fj_tls_snapshot(const void *p);
int  fj_tls_restore(void *p, const void *snapshot);

/* ---- loops ------------------------------------------------------------- */

/* The iteration variable's type, as the __kmpc entry points name it. */
typedef enum fj_int_kind {
    FJ_INT32, FJ_UINT32, FJ_INT64, FJ_UINT64,
} fj_int_kind_t;

/* Static schedules (__kmpc_for_static_init_*): bounds in, this thread's
 * bounds out.  Values are the loop's values widened to 64 bits (sign- or
 * zero-extended by kind); results are to be truncated back. */
void fj_static_init(int schedule, fj_int_kind_t kind, int32_t *last,
                    int64_t *lower, int64_t *upper, int64_t *stride,
                    int64_t incr, int64_t chunk);

/* Dynamic, guided, runtime, auto and ordered schedules. */
void fj_dispatch_init(int schedule, fj_int_kind_t kind, int64_t lower,
                      int64_t upper, int64_t incr, int64_t chunk);
/* Returns 1 with the next chunk, 0 when the loop has no more work. */
int  fj_dispatch_next(int32_t *last, int64_t *lower, int64_t *upper,
                      int64_t *stride);
/* End of one iteration of an ordered loop. */
void fj_dispatch_fini(void);
void fj_ordered_begin(void);
void fj_ordered_end(void);

/* Doacross loops (ordered(n) with depend(sink) and depend(source)): the
 * loop nest's n dimensions, each as the loop variable's first value, its
 * last (inclusive) and its step; vectors hold one value per dimension in
 * the same terms.  Dimension 0 is the work-sharing loop, whose iteration
 * numbers (0, 1, ...) are dimension 0's, as both compilers normalise it.
 * init is called by every member before the loop's schedule starts, fini
 * after its last iteration.  wait returns once the iteration vec names
 * has posted, and what that iteration wrote is visible (an iteration
 * outside the loop's space is no dependence); post marks the calling
 * thread's current iteration vec done.  Memory: a post is a release and
 * a wait an acquire of the poster's writes, paid only when the two
 * iterations ran on different nodes. */
typedef struct fj_doacross_dim {
    int64_t lo, up, st;      /* libomp's kmp_dim, field for field */
} fj_doacross_dim_t;
/* Dimensions of a doacross nest dsmomp takes (more: a fatal error). */
#define FJ_DOACROSS_MAX_DIMS 16
void fj_doacross_init(int ndims, const fj_doacross_dim_t *dims);
void fj_doacross_wait(const int64_t *vec);
void fj_doacross_post(const int64_t *vec);
void fj_doacross_fini(void);

/* ---- cancellation (cancel-var: OMP_CANCELLATION) ----------------------- */

/* Construct kinds, libomp's cncl_kind numbers. */
enum { FJ_CANCEL_PARALLEL = 1, FJ_CANCEL_LOOP = 2, FJ_CANCEL_SECTIONS = 3,
       FJ_CANCEL_TASKGROUP = 4 };
int fj_cancellation(void);              /* cancel-var: 1 when enabled */
/* cancel: returns 1 when cancellation of the innermost construct of that
 * kind is active (activated now or before) and the calling thread must
 * go to its end; 0 when cancel-var is false (nothing happens).  An
 * unknown kind ends the job. */
int fj_cancel(int kind);
/* cancellation point: 1 when that construct is cancelled. */
int fj_cancellation_point(int kind);
/* A barrier that is a cancellation point: returns 1 (to every member,
 * without waiting once it knows) when the region is cancelled, 0 after a
 * barrier otherwise.  A cancelled loop or sections construct does not
 * make it return 1: the region goes on after it. */
int fj_cancel_barrier(void);

/* ---- queries and internal control variables --------------------------- */

int fj_started(void);              /* fj_main has set the runtime up */
int fj_heap_open(void);            /* the sharable heap serves the
                                      program's malloc (after start-up,
                                      before shut-down) */
int fj_gtid(void);                 /* node * threads + local (extra
                                      threads: see the header); -1 for a
                                      thread the runtime did not create */
int fj_thread_id_bound(void);      /* every fj_gtid() is below it */
int fj_thread_num(void);           /* omp_get_thread_num */
int fj_num_threads(void);          /* omp_get_num_threads */
int fj_level(void);                /* omp_get_level */
int fj_active_level(void);         /* omp_get_active_level */
int fj_team_num(void);             /* omp_get_team_num */
int fj_num_teams(void);            /* omp_get_num_teams */
int fj_ancestor_thread_num(int level);
int fj_team_size(int level);
int fj_process_thread_num(void);   /* thread number within this node */
int fj_total_threads(void);        /* nodes * threads per node */
int fj_in_final(void);

/* Schedule kinds of omp_sched_t (values as in omp.h), and its monotonic
 * modifier bit, which run-sched-var keeps beside the kind. */
enum { FJ_SCHED_STATIC = 1, FJ_SCHED_DYNAMIC = 2, FJ_SCHED_GUIDED = 3,
       FJ_SCHED_AUTO = 4 };
#define FJ_SCHED_MONOTONIC ((int)0x80000000u)
#define FJ_SCHED_KIND(k) ((k) & ~FJ_SCHED_MONOTONIC)

int  fj_icv_nthreads(void);
void fj_icv_set_nthreads(int nthreads);
int  fj_icv_dynamic(void);
void fj_icv_set_dynamic(int dynamic);
/* kind: an omp_sched_t with its modifier; chunk: as omp_get_schedule
 * reports it (0 for static's default blocks, at least 1 otherwise).
 * Setting an unknown kind ends the job. */
void fj_icv_schedule(int *kind, int *chunk);
void fj_icv_set_schedule(int kind, int chunk);
int  fj_icv_max_active_levels(void);
void fj_icv_set_max_active_levels(int levels);
int  fj_supported_active_levels(void);
void fj_icv_set_nested(int nested);   /* omp_set_nested */
int  fj_icv_thread_limit(void);

/* Device-wide ICVs: the node's values (serial code runs on node 0).
 * Setters ignore values libomp ignores (teams: less than 1). */
int  fj_icv_num_teams(void);
void fj_icv_set_num_teams(int nteams);
int  fj_icv_teams_thread_limit(void);
void fj_icv_set_teams_thread_limit(int limit);
int  fj_icv_default_device(void);
void fj_icv_set_default_device(int device);
int  fj_icv_proc_bind(void);             /* an omp_proc_bind_t value */
uintptr_t fj_icv_default_allocator(void);  /* OMP_ALLOCATOR: 1 .. 8 */
/* The name of predefined allocator 1 .. 8, NULL for any other. */
const char *fj_icv_allocator_name(uintptr_t allocator);
/* affinity-format-var: copied to buf (size bytes, truncated, NUL ended);
 * returns its length.  Setting a format of 4096 characters or more ends
 * the job. */
size_t fj_icv_affinity_format(char *buf, size_t size);
void fj_icv_set_affinity_format(const char *format);

/* The node's settings: each team thread's stack, and how long idle
 * threads poll before sleeping (kmp_set_blocktime, milliseconds), and
 * libomp's library modes (kmp_set_library): serial makes teams of one
 * thread, turnaround waits actively, throughput as OMP_WAIT_POLICY. */
enum { FJ_LIBRARY_SERIAL = 1, FJ_LIBRARY_TURNAROUND = 2,
       FJ_LIBRARY_THROUGHPUT = 3 };
size_t fj_icv_stack_size(void);
int  fj_icv_blocktime(void);
void fj_icv_set_blocktime(int ms);
int  fj_icv_library(void);
void fj_icv_set_library(int library);    /* an unknown mode ends the job */

/* This node's processors: OS numbers of the CPUs the process may run on
 * at start-up; returns their count (at least 1). */
int  fj_node_cpus(const int **cpus);

/* omp_pause_resource on the host: 0 when done; non-zero when already
 * paused (soft, hard), not paused (resume), inside an active region, or
 * for an unknown kind.  A hard pause resets the ICVs to their start-up
 * values; the next region resumes. */
enum { FJ_PAUSE_RESUME = 0, FJ_PAUSE_SOFT = 1, FJ_PAUSE_HARD = 2 };
int  fj_pause(int kind);

/* The ICVs' start-up values, for omp_display_env. */
typedef struct fj_icv_report {
    int nthreads, dynamic, sched_kind, sched_chunk, thread_limit;
    int max_active_levels;
    size_t stack_size;
    int nteams, teams_thread_limit, default_device, proc_bind, allocator;
    int spin;
    uint64_t blocktime_ms;
    const char *affinity_format;
    int display_env;         /* OMP_DISPLAY_ENV: 0, 1 true, 2 verbose */
} fj_icv_report_t;
void fj_icv_initial(fj_icv_report_t *out);
/* Print the OpenMP version, the ICVs' start-up values and dsmomp's
 * settings (the layout; all of them with verbose) to stderr, as
 * OMP_DISPLAY_ENV asks at start-up (node 0) and omp_display_env does. */
void fj_display_env(int verbose);

#endif
