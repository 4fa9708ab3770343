/*
 * gomp_task.c - explicit tasks and taskloops in GCC's ABI.  Every task runs
 * at once, undeferred, in the thread that creates it, which the
 * specification allows: dependences are met by construction, and taskwait,
 * taskgroup and taskyield have nothing to wait for.  (The libomp ABI's
 * tasks are deferred on fj_task's pools; this ABI does not use them yet.)
 *
 * GOMP_task(fn, data, cpyfn, arg_size, arg_align, ...): the task's
 * firstprivate data is data itself, or, when gcc gives a copy function, a
 * block of arg_size bytes aligned to arg_align that cpyfn(block, data)
 * fills.  A taskloop splits its iterations into tasks as libgomp's
 * documentation says (num_tasks, or grainsize: tasks of at least that
 * many iterations, exactly that many with strict) and hands each task its
 * bounds in the first two words of its data.
 *
 * Deferring them on fj_task (forkjoin_task.h) would plug in at run_task
 * and the taskwait/taskgroup entries: the task's function, its data block
 * and copy function are all a queue needs; gcc's depend array would be
 * translated to fj_dep_t.
 *
 * Layer: compiler-shim.  Application threads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
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
    "tasks run undeferred; use a reduction clause on a loop or region";

/* A block for a task's copied data, sharable once the runtime is up: a
 * parallel region inside the task may pass its variables' addresses to
 * other nodes. */
static void *task_block(long arg_size, long arg_align, void **to_free)
{
    size_t align = arg_align > 0 ? (size_t)arg_align : 1;
    size_t size = arg_size > 0 ? (size_t)arg_size : 1;
    char *raw = fj_heap_open() ? dsm_malloc(size + align - 1)
                               : malloc(size + align - 1);
    if (!raw)
        dsm_fatal("dsmomp: out of memory for a task's data (%zu bytes)",
                  size);
    *to_free = raw;
    return (void *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
}

static void free_block(void *raw)
{
    if (raw && dsm_is_sharable(raw))
        dsm_free(raw);
    else
        free(raw);
}

/* Run one task now; with cpyfn its data is a copy of data. */
static void run_task(void (*fn)(void *), void *data,
                     void (*cpyfn)(void *, void *), long arg_size,
                     long arg_align)
{
    if (!cpyfn) {
        fn(data);
        return;
    }
    void *raw;
    void *block = task_block(arg_size, arg_align, &raw);
    cpyfn(block, data);
    fn(block);
    free_block(raw);
}

void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
               long arg_size, long arg_align, bool if_clause, unsigned flags,
               void **depend, int priority, void *detach)
{
    (void)if_clause;
    (void)depend;
    (void)priority;
    (void)detach;
    if (flags & GOMP_TASK_FLAG_DETACH)
        GOMP_UNSUPPORTED("task detach",
                         "tasks run undeferred and cannot wait for an event");
    if (flags & GOMP_TASK_FLAG_REDUCTION)
        GOMP_UNSUPPORTED("task reduction (in_reduction)", taskred_why);
    run_task(fn, data, cpyfn, arg_size, arg_align);
}

void GOMP_taskwait(void) {}
void GOMP_taskwait_depend(void **depend) { (void)depend; }
void GOMP_taskyield(void) {}
void GOMP_taskgroup_start(void) {}
void GOMP_taskgroup_end(void) {}

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

/* Runs the tasks; bounds(data, i0, i1) writes the task's first and end
 * values (iteration numbers i0 .. i1, exclusive) into its data. */
static void taskloop(void (*fn)(void *), void *data,
                     void (*cpyfn)(void *, void *), long arg_size,
                     long arg_align, unsigned flags, unsigned long num_tasks,
                     uint64_t n,
                     void (*bounds)(void *, uint64_t, uint64_t, const void *),
                     const void *loop, const void *caller)
{
    if (flags & GOMP_TASK_FLAG_REDUCTION)
        gomp_unsupported("taskloop with a reduction", caller, taskred_why);
    if (n == 0)
        return;
    uint64_t tasks = taskloop_tasks(n, flags, num_tasks);
    uint64_t first = 0;
    for (uint64_t t = 0; t < tasks; t++) {
        uint64_t count = taskloop_share(n, tasks, t, flags, num_tasks);
        void *raw = NULL;
        void *block = data;
        if (cpyfn) {
            block = task_block(arg_size, arg_align, &raw);
            cpyfn(block, data);
        }
        bounds(block, first, first + count, loop);
        fn(block);
        free_block(raw);
        first += count;
    }
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
    (void)priority;
    long_loop_t loop = {start, step};
    taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks,
             gomp_trip_long(start, end, step), long_bounds, &loop,
             __builtin_return_address(0));
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
    (void)priority;
    ull_loop_t loop = {start, step};
    taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks,
             gomp_trip_ull((flags & GOMP_TASK_FLAG_UP) != 0, start, end,
                           step),
             ull_bounds, &loop, __builtin_return_address(0));
}
