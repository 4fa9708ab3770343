/*
 * gomp_task.c - explicit tasks and taskloops in GCC's ABI, deferred on the
 * fork-join layer's tasks (forkjoin_task.h, doc/design.md "Tasks") as the
 * libomp ABI's are: they run on the creating node's threads, with the
 * same pools, dependences, taskwait, taskgroups, priorities and final.
 *
 * GOMP_task(fn, data, cpyfn, arg_size, arg_align, if, flags, depend,
 * priority, detach): data is a block gcc built on the creating thread's
 * stack.  A deferred task gets its own copy of it, arg_size bytes aligned
 * to arg_align in the task's payload, made at creation by cpyfn(copy,
 * data) when gcc gives a copy function (C++ copy constructors, VLAs),
 * bytewise otherwise; the payload's head says which fn runs on which
 * block (one entry, gtask_entry, for every GCC task).  if(0), and a
 * task made inside a final task (included), waits for its dependences,
 * then runs at once in this thread on data itself (on a copy with
 * cpyfn): the creator waits, so data stays valid.  A taskloop's priority
 * comes without GOMP_TASK_FLAG_PRIORITY (gcc 12 passes it alone).
 * GCC's untied tasks are plain functions without parts: untied only
 * marks them.  mergeable changes nothing (it allows, does not require).
 *
 * gcc's depend array (checked against gcc 12's output and libgomp's
 * task.c): depend[0] = n addresses, depend[1] = how many of them, first,
 * are out/inout, the rest in, addresses from depend[2]; or depend[0] = 0,
 * then depend[1] = n, [2] out/inout, [3] mutexinoutset, [4] in, addresses
 * from depend[5] in that order, and the remaining n - [2] - [3] - [4] are
 * omp_depend_t objects (depobj: {address, kind}, kinds as gomp-constants.h
 * GOMP_DEPEND_*).
 *
 * A taskloop splits its iterations into tasks as libgomp's documentation
 * says (num_tasks, or grainsize: tasks of at least that many iterations,
 * exactly that many with strict); each task is a GOMP_task-like copy of
 * data with its bounds in the copy's first two words, deferred unless the
 * if clause is false, inside a taskgroup unless nogroup.
 *
 * Not supported (the job ends naming the construct): detach, task
 * reductions (in_reduction, taskloop reduction).
 *
 * Layer: compiler-shim.  Application threads (inside task bodies too).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "forkjoin.h"
#include "forkjoin_task.h"
#include "gomp_abi.h"

GOMP_EXPORT void GOMP_task(void (*fn)(void *), void *data,
                           void (*cpyfn)(void *, void *), long arg_size,
                           long arg_align, bool if_clause, unsigned flags,
                           void **depend, int priority, void *detach);
GOMP_EXPORT void GOMP_taskwait(void);
GOMP_EXPORT void GOMP_taskwait_depend(void **depend);
GOMP_EXPORT void GOMP_taskyield(void);
GOMP_EXPORT void GOMP_taskgroup_start(void);
GOMP_EXPORT void GOMP_taskgroup_end(void);
GOMP_EXPORT void GOMP_taskloop(void (*fn)(void *), void *data,
                               void (*cpyfn)(void *, void *), long arg_size,
                               long arg_align, unsigned flags,
                               unsigned long num_tasks, int priority,
                               long start, long end, long step);
GOMP_EXPORT void GOMP_taskloop_ull(void (*fn)(void *), void *data,
                                   void (*cpyfn)(void *, void *),
                                   long arg_size, long arg_align,
                                   unsigned flags, unsigned long num_tasks,
                                   int priority, unsigned long long start,
                                   unsigned long long end,
                                   unsigned long long step);

static const char taskred_why[] =
    "dsmomp does not implement GCC's task reductions; use a reduction "
    "clause on a loop or region";

/* Dependence kinds of omp_depend_t objects (gomp-constants.h). */
enum {
    GOMP_DEPEND_IN = 1,
    GOMP_DEPEND_OUT = 2,
    GOMP_DEPEND_INOUT = 3,
    GOMP_DEPEND_MUTEXINOUTSET = 4,
};

/* ---- descriptors ----------------------------------------------------------- */

/* The head of a GCC task's payload: the body and the block it runs on
 * (the copy that follows the head, or the creator's data for if(0)). */
typedef struct gtask {
    void (*fn)(void *);
    void *arg;
} gtask_t;

static int32_t gtask_entry(int32_t gtid, void *payload)
{
    (void)gtid;
    gtask_t *g = payload;
    g->fn(g->arg);
    return 0;
}

/* fj_task's flags for gcc's. */
static unsigned fj_flags_of(unsigned flags)
{
    unsigned f = 0;
    if (flags & GOMP_TASK_FLAG_UNTIED)
        f |= FJ_TASK_UNTIED;
    if (flags & GOMP_TASK_FLAG_FINAL)
        f |= FJ_TASK_FINAL;
    if (flags & GOMP_TASK_FLAG_PRIORITY)
        f |= FJ_TASK_HAS_PRIORITY;
    return f;
}

/* A task running fn on a copy of data (copy) or on data itself.  The
 * payload is sharable memory once the runtime is up: a parallel region
 * inside the task may pass the copy's variables to other nodes. */
static gtask_t *gtask_new(const char *where, unsigned fj_flags,
                          void (*fn)(void *), void *data,
                          void (*cpyfn)(void *, void *), long arg_size,
                          long arg_align, int copy)
{
    size_t align = arg_align > 0 ? (size_t)arg_align : 1;
    size_t size = arg_size > 0 ? (size_t)arg_size : 0;
    if (align & (align - 1))
        dsm_fatal("dsmomp: %s: the task's data alignment %zu is not a "
                  "power of two", where, align);
    size_t bytes = sizeof(gtask_t) + (copy ? size + align - 1 : 0);
    void *shareds;
    gtask_t *g = fj_task_alloc(fj_flags, bytes, sizeof(gtask_t), 0,
                               gtask_entry, &shareds, where);
    g->fn = fn;
    g->arg = data;
    if (copy) {
        char *block = (char *)(((uintptr_t)(g + 1) + align - 1) &
                               ~(uintptr_t)(align - 1));
        if (cpyfn)
            cpyfn(block, data);
        else if (size)
            memcpy(block, data, size);
        g->arg = block;
    }
    return g;
}

/* ---- dependences --------------------------------------------------------- */

#define STACK_DEPS 32

/* The dependences of gcc's depend array (format: the file's header) for
 * the fork-join layer; *out is stack or a malloc'd array.  Returns the
 * count. */
static int convert_deps(void **depend, fj_dep_t *stack, fj_dep_t **out,
                        const void *caller)
{
    uintptr_t n, nout, nmtx = 0, nin;
    void **addrs;
    if ((uintptr_t)depend[0] != 0) {
        n = (uintptr_t)depend[0];
        nout = (uintptr_t)depend[1];
        nin = n - nout;
        addrs = depend + 2;
    } else {
        n = (uintptr_t)depend[1];
        nout = (uintptr_t)depend[2];
        nmtx = (uintptr_t)depend[3];
        nin = (uintptr_t)depend[4];
        addrs = depend + 5;
    }
    if (nout > n || nout + nmtx + nin > n || n > INT32_MAX)
        dsm_fatal("dsmomp: a depend array with %lu dependences of which "
                  "%lu out, %lu mutexinoutset and %lu in",
                  (unsigned long)n, (unsigned long)nout,
                  (unsigned long)nmtx, (unsigned long)nin);
    *out = stack;
    if (n > STACK_DEPS) {
        *out = malloc(n * sizeof **out);
        if (!*out)
            dsm_fatal("out of memory for %lu dependences", (unsigned long)n);
    }
    for (uintptr_t i = 0; i < n; i++) {
        void *addr = addrs[i];
        fj_dep_kind_t kind;
        if (i < nout) {
            kind = FJ_DEP_OUT;
        } else if (i < nout + nmtx) {
            kind = FJ_DEP_MUTEXINOUTSET;
        } else if (i < nout + nmtx + nin) {
            kind = FJ_DEP_IN;
        } else {
            /* depend(depobj: o): o is {address, kind} */
            void **obj = addr;
            addr = obj[0];
            switch ((uintptr_t)obj[1]) {
            case GOMP_DEPEND_IN:
                kind = FJ_DEP_IN;
                break;
            case GOMP_DEPEND_OUT:
            case GOMP_DEPEND_INOUT:
                kind = FJ_DEP_OUT;
                break;
            case GOMP_DEPEND_MUTEXINOUTSET:
                kind = FJ_DEP_MUTEXINOUTSET;
                break;
            default:
                gomp_unsupported("a depend object of this kind", caller,
                                 "gcc 12's kinds are in, out, inout and "
                                 "mutexinoutset");
            }
        }
        if (!addr)
            gomp_unsupported("depend(omp_all_memory)", caller,
                             "name the variables the task accesses");
        (*out)[i] = (fj_dep_t){(uintptr_t)addr, kind};
    }
    return (int)n;
}

/* ---- task ---------------------------------------------------------------- */

void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
               long arg_size, long arg_align, bool if_clause, unsigned flags,
               void **depend, int priority, void *detach)
{
    (void)detach;
    const void *caller = __builtin_return_address(0);
    if (flags & GOMP_TASK_FLAG_DETACH)
        gomp_unsupported("task detach", caller,
                         "dsmomp does not implement GCC's detach; build "
                         "with dsmcc (clang) for detached tasks");
    if (flags & GOMP_TASK_FLAG_REDUCTION)
        gomp_unsupported("task reduction (in_reduction)", caller,
                         taskred_why);
    fj_dep_t stack[STACK_DEPS], *deps = stack;
    int ndeps = 0;
    if ((flags & GOMP_TASK_FLAG_DEPEND) && depend)
        ndeps = convert_deps(depend, stack, &deps, caller);
    unsigned f = fj_flags_of(flags);
    if (!if_clause || fj_in_final()) {
        /* undeferred (if(0)), or included in a final task: the creator
         * waits for it, so it may run on data itself */
        fj_task_wait_deps(ndeps, deps);
        gtask_t *g = gtask_new("GOMP_task", f, fn, data, cpyfn, arg_size,
                               arg_align, cpyfn != NULL);
        fj_task_run_undeferred(g);
    } else {
        gtask_t *g = gtask_new("GOMP_task", f, fn, data, cpyfn, arg_size,
                               arg_align, 1);
        if (flags & GOMP_TASK_FLAG_PRIORITY)
            fj_task_set_priority(g, priority);
        fj_task_submit(g, ndeps, deps);
    }
    if (deps != stack)
        free(deps);
}

void GOMP_taskwait(void) { fj_taskwait(); }

void GOMP_taskwait_depend(void **depend)
{
    fj_dep_t stack[STACK_DEPS], *deps;
    int ndeps = convert_deps(depend, stack, &deps,
                             __builtin_return_address(0));
    fj_task_wait_deps(ndeps, deps);
    if (deps != stack)
        free(deps);
}

void GOMP_taskyield(void) { fj_taskyield(); }
void GOMP_taskgroup_start(void) { fj_taskgroup_begin(); }
void GOMP_taskgroup_end(void) { fj_taskgroup_end(); }

/* ---- taskloop ------------------------------------------------------------ */

/* How many tasks share n iterations (n >= 1). */
static uint64_t taskloop_tasks(uint64_t n, unsigned flags,
                               unsigned long num_tasks)
{
    uint64_t tasks;
    if (flags & GOMP_TASK_FLAG_GRAINSIZE) {
        uint64_t grain = num_tasks ? num_tasks : 1;
        tasks = (flags & GOMP_TASK_FLAG_STRICT) ? (n + grain - 1) / grain
                                                 : n / grain;
    } else {
        tasks = num_tasks ? num_tasks : (uint64_t)fj_num_threads();
    }
    if (tasks < 1)
        tasks = 1;
    return tasks < n ? tasks : n;
}

/* Iterations of task t of tasks over n: equal shares, the first ones one
 * more; with a strict grainsize, exactly grain each but the last. */
static uint64_t taskloop_share(uint64_t n, uint64_t tasks, uint64_t t,
                               unsigned flags, unsigned long grain)
{
    if ((flags & GOMP_TASK_FLAG_GRAINSIZE) &&
        (flags & GOMP_TASK_FLAG_STRICT) && grain)
        return t + 1 < tasks ? grain : n - (tasks - 1) * grain;
    return n / tasks + (t < n % tasks);
}

/* Makes the tasks; bounds(block, i0, i1, loop) writes the task's first and
 * end values (iteration numbers i0 .. i1, exclusive) into its block. */
static void taskloop(void (*fn)(void *), void *data,
                     void (*cpyfn)(void *, void *), long arg_size,
                     long arg_align, unsigned flags, unsigned long num_tasks,
                     int priority, uint64_t n,
                     void (*bounds)(void *, uint64_t, uint64_t, const void *),
                     const void *loop, size_t bounds_size, const void *caller)
{
    if (flags & GOMP_TASK_FLAG_REDUCTION)
        gomp_unsupported("taskloop with a reduction", caller, taskred_why);
    if (n == 0)
        return;
    if (arg_size < 0 || (size_t)arg_size < bounds_size)
        dsm_fatal("dsmomp: GOMP_taskloop: the tasks' data (%ld bytes) "
                  "cannot hold their bounds", arg_size);
    unsigned f = fj_flags_of(flags);
    if (priority > 0)
        f |= FJ_TASK_HAS_PRIORITY;
    /* gcc sets the flag unless an if clause is false */
    int deferred = (flags & GOMP_TASK_FLAG_IF) && !fj_in_final();
    int group = !(flags & GOMP_TASK_FLAG_NOGROUP);
    if (group)
        fj_taskgroup_begin();
    uint64_t tasks = taskloop_tasks(n, flags, num_tasks);
    uint64_t first = 0;
    for (uint64_t t = 0; t < tasks; t++) {
        uint64_t count = taskloop_share(n, tasks, t, flags, num_tasks);
        gtask_t *g = gtask_new("GOMP_taskloop", f, fn, data, cpyfn,
                               arg_size, arg_align, 1);
        bounds(g->arg, first, first + count, loop);
        if (deferred) {
            /* gcc passes a taskloop's priority without the flag (0 when
             * there is no clause) */
            if (priority > 0)
                fj_task_set_priority(g, priority);
            fj_task_submit(g, 0, NULL);
        } else {
            fj_task_run_undeferred(g);
        }
        first += count;
    }
    if (group)
        fj_taskgroup_end();
}

typedef struct long_loop {
    long start, step;
} long_loop_t;

static void long_bounds(void *block, uint64_t i0, uint64_t i1,
                        const void *loop)
{
    const long_loop_t *l = loop;
    long v[2] = {(long)((uint64_t)l->start + i0 * (uint64_t)l->step),
                 (long)((uint64_t)l->start + i1 * (uint64_t)l->step)};
    memcpy(block, v, sizeof v);
}

void GOMP_taskloop(void (*fn)(void *), void *data,
                   void (*cpyfn)(void *, void *), long arg_size,
                   long arg_align, unsigned flags, unsigned long num_tasks,
                   int priority, long start, long end, long step)
{
    long_loop_t loop = {start, step};
    taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks,
             priority, gomp_trip_long(start, end, step), long_bounds, &loop,
             2 * sizeof(long), __builtin_return_address(0));
}

typedef struct ull_loop {
    unsigned long long start, step;
} ull_loop_t;

static void ull_bounds(void *block, uint64_t i0, uint64_t i1,
                       const void *loop)
{
    const ull_loop_t *l = loop;
    unsigned long long v[2] = {l->start + i0 * l->step,
                               l->start + i1 * l->step};
    memcpy(block, v, sizeof v);
}

void GOMP_taskloop_ull(void (*fn)(void *), void *data,
                       void (*cpyfn)(void *, void *), long arg_size,
                       long arg_align, unsigned flags,
                       unsigned long num_tasks, int priority,
                       unsigned long long start, unsigned long long end,
                       unsigned long long step)
{
    ull_loop_t loop = {start, step};
    taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks,
             priority,
             gomp_trip_ull((flags & GOMP_TASK_FLAG_UP) != 0, start, end,
                           step),
             ull_bounds, &loop, 2 * sizeof(unsigned long long),
             __builtin_return_address(0));
}
