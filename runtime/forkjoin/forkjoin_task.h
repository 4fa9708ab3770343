/*
 * forkjoin_task.h - explicit tasks: the fork-join layer's interface for the
 * compiler shim (the task half of forkjoin.h).
 *
 * Layer: forkjoin.  Entry points: fj_task_* (descriptors, submission,
 * if(0) tasks, dependences, detach), fj_taskwait, fj_taskyield,
 * fj_taskgroup_*, fj_taskred_* (task reductions).  Called from application
 * threads (inside a task entry too); never from signal handlers.
 *
 * A task is deferred and runs on a thread of the node that creates it: the
 * node's team threads share a pool of per-thread queues and take work from
 * each other at task scheduling points (doc/design.md, "Tasks").  Outside
 * an active region (serial code, serialised regions, the program's own
 * threads) a task runs in its creating thread as soon as its dependences
 * allow.  A descriptor is one block of the sharable heap (the node's arena,
 * same address on every node): the runtime's header, then the payload (the
 * compiler's kmp_task_t and private variables), then the shareds block.
 */
#ifndef FORKJOIN_TASK_H
#define FORKJOIN_TASK_H

#include <stddef.h>
#include <stdint.h>

/* A task's code: the compiler's entry, called with the executing thread's
 * gtid and the payload. */
typedef int32_t (*fj_task_entry_t)(int32_t gtid, void *payload);

/* Properties of a task (the shim translates the compiler's flags). */
enum {
    FJ_TASK_UNTIED = 1u << 0,    /* may resume on another thread */
    FJ_TASK_FINAL = 1u << 1,     /* final clause true: descendants are
                                    included (run at once, in order) */
    FJ_TASK_HAS_PRIORITY = 1u << 2,  /* the shim reads a priority clause
                                        from the payload at submission */
};

/* Allocate a task: the payload is payload_bytes long (its first head_bytes
 * zeroed), the shareds block shareds_bytes (*shareds: its address, NULL
 * when 0).  where: the construct's location, for messages. */
void *fj_task_alloc(unsigned flags, size_t payload_bytes, size_t head_bytes,
                    size_t shareds_bytes, fj_task_entry_t entry,
                    void **shareds, const char *where);
/* A copy of an allocated, not yet submitted task: payload and shareds
 * copied bytewise; *shareds: the copy's shareds block. */
void *fj_task_clone(void *payload, void **shareds);
/* The flags given to fj_task_alloc (FJ_TASK_FINAL also when inherited). */
unsigned fj_task_flags(void *payload);
/* Free an allocated task that was never submitted (taskloop's pattern);
 * its fini runs first (the compiler constructed its private objects). */
void fj_task_discard(void *payload);
/* fini(gtid, payload) runs once, in the thread that finishes the task,
 * when its entry has returned for good (before its dependants are
 * released), or when it is discarded: C++ tasks destroy their
 * firstprivate objects so.  A clone inherits it. */
void fj_task_set_fini(void *payload, fj_task_entry_t fini);
/* The priority clause's value (clamped to omp_get_max_task_priority). */
void fj_task_set_priority(void *payload, int priority);
int  fj_task_max_priority(void);

/* A dependence of depend(...), as the compiler lists them. */
typedef enum fj_dep_kind {
    FJ_DEP_IN, FJ_DEP_OUT, FJ_DEP_MUTEXINOUTSET, FJ_DEP_INOUTSET,
} fj_dep_kind_t;

typedef struct fj_dep {
    uintptr_t addr;
    fj_dep_kind_t kind;
} fj_dep_t;

/* Submit a task for execution after its dependences on earlier sibling
 * tasks (ndeps may be 0).  Called on the task that is running in this
 * thread (an untied task's entry hands itself back at a scheduling point),
 * it queues the task to continue where its part_id says once the entry
 * returns. */
void fj_task_submit(void *payload, int ndeps, const fj_dep_t *deps);
/* Run an allocated task at once in this thread (undeferred, no
 * dependences): taskloop's if(0). */
void fj_task_run_undeferred(void *payload);
/* if(0) tasks: the compiler calls the entry itself between these. */
void fj_task_if0_begin(void *payload);
void fj_task_if0_complete(void *payload);
/* Wait until the earlier sibling tasks these dependences name are
 * complete (if(0) tasks with depend, taskwait with depend). */
void fj_task_wait_deps(int ndeps, const fj_dep_t *deps);

void fj_taskwait(void);
void fj_taskyield(void);
void fj_taskgroup_begin(void);
void fj_taskgroup_end(void);

/* detach: the task completes when its event is fulfilled and its entry
 * has returned.  The handle is valid on the task's node only. */
void *fj_task_event(void *payload, const char *where);
void fj_task_fulfill(void *event);

/* Threads of this node that execute the current context's tasks. */
int fj_task_context_threads(void);

/* ---- task reductions ------------------------------------------------- */

/* One reduction item (task_reduction, reduction on taskloop, the task
 * modifier).  init is init(priv, orig) when init_with_orig, else
 * init(priv); fini may be NULL; comb(lhs, rhs) combines rhs into lhs. */
typedef struct fj_taskred_item {
    void *shar;                 /* the item as tasks name it */
    void *orig;                 /* the original list item */
    size_t size;
    void (*init)(void);         /* cast by init_with_orig */
    void (*fini)(void *priv);
    void (*comb)(void *lhs, void *rhs);
    int init_with_orig;
} fj_taskred_item_t;

/* Attach the items to the innermost taskgroup of the current task (which
 * must be open); returns that taskgroup. */
void *fj_taskred_begin(int n, const fj_taskred_item_t *items,
                       const char *where);
/* The reduction modifier on a parallel or worksharing construct (is_ws):
 * every member of the team calls begin and end; the private copies are
 * shared by the node's members and combined into one member's own item at
 * end (its private copy of the construct's reduction, which the ordinary
 * reduction then combines across nodes). */
void *fj_taskred_modifier_begin(int is_ws, int n,
                                const fj_taskred_item_t *items,
                                const char *where);
void fj_taskred_modifier_end(int is_ws);
/* The executing thread's copy of item (shar, or a copy) of the
 * reduction of taskgroup tg, or of the innermost enclosing one naming it
 * when tg is NULL. */
void *fj_taskred_private(void *tg, void *item);

#endif
