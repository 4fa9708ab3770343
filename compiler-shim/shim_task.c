/*
 * shim_task.c - explicit tasks in the libomp ABI.  Every task runs at once,
 * undeferred, in the thread that creates it (the specification allows
 * it): its dependences are then met by construction, and taskwait and
 * taskgroup have nothing left to wait for.
 *
 * Layer: compiler-shim.  Application threads.  Task memory is the
 * creating thread's (malloc): the task never leaves it.
 */
#include <stdlib.h>

#include "base_log.h"
#include "forkjoin.h"
#include "shim_kmp.h"

SHIM_EXPORT kmp_task_t *__kmpc_omp_task_alloc(
    ident_t *loc, kmp_int32 gtid, kmp_int32 flags, size_t sizeof_kmp_task_t,
    size_t sizeof_shareds, kmp_routine_entry_t task_entry);
SHIM_EXPORT kmp_int32 __kmpc_omp_task(ident_t *loc, kmp_int32 gtid,
                                      kmp_task_t *task);
SHIM_EXPORT void __kmpc_omp_task_begin_if0(ident_t *loc, kmp_int32 gtid,
                                           kmp_task_t *task);
SHIM_EXPORT void __kmpc_omp_task_complete_if0(ident_t *loc, kmp_int32 gtid,
                                              kmp_task_t *task);
SHIM_EXPORT kmp_int32 __kmpc_omp_task_with_deps(
    ident_t *loc, kmp_int32 gtid, kmp_task_t *task, kmp_int32 ndeps,
    void *dep_list, kmp_int32 ndeps_noalias, void *noalias_dep_list);
SHIM_EXPORT void __kmpc_omp_wait_deps(ident_t *loc, kmp_int32 gtid,
                                      kmp_int32 ndeps, void *dep_list,
                                      kmp_int32 ndeps_noalias,
                                      void *noalias_dep_list);
SHIM_EXPORT kmp_int32 __kmpc_omp_reg_task_with_affinity(
    ident_t *loc, kmp_int32 gtid, kmp_task_t *task, kmp_int32 naffins,
    void *affin_list);
SHIM_EXPORT kmp_int32 __kmpc_omp_taskwait(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT kmp_int32 __kmpc_omp_taskyield(ident_t *loc, kmp_int32 gtid,
                                           int end_part);
SHIM_EXPORT void __kmpc_taskgroup(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void __kmpc_end_taskgroup(ident_t *loc, kmp_int32 gtid);

/* libomp's answer when the task did not stay queued. */
#define TASK_CURRENT_NOT_QUEUED 0

kmp_task_t *__kmpc_omp_task_alloc(ident_t *loc, kmp_int32 gtid,
                                  kmp_int32 flags, size_t sizeof_kmp_task_t,
                                  size_t sizeof_shareds,
                                  kmp_routine_entry_t task_entry)
{
    size_t head = (sizeof_kmp_task_t + 15) & ~(size_t)15;
    kmp_task_t *task = calloc(1, head + sizeof_shareds);
    if (!task)
        dsm_fatal("out of memory for a task at %s", shim_where(loc));
    task->shareds = sizeof_shareds ? (char *)task + head : NULL;
    task->routine = task_entry;
    return task;
}

static void run(kmp_int32 gtid, kmp_task_t *task)
{
    task->routine(gtid, task);
    free(task);
}

kmp_int32 __kmpc_omp_task(ident_t *loc, kmp_int32 gtid, kmp_task_t *task)
{
    run(gtid, task);
    return TASK_CURRENT_NOT_QUEUED;
}

/* An if(0) task: the compiler calls its entry itself between these. */
void __kmpc_omp_task_begin_if0(ident_t *loc, kmp_int32 gtid,
                               kmp_task_t *task) {}

void __kmpc_omp_task_complete_if0(ident_t *loc, kmp_int32 gtid,
                                  kmp_task_t *task)
{
    free(task);
}

/* Every earlier sibling has completed, so the dependences hold. */
kmp_int32 __kmpc_omp_task_with_deps(ident_t *loc, kmp_int32 gtid,
                                    kmp_task_t *task, kmp_int32 ndeps,
                                    void *dep_list, kmp_int32 ndeps_noalias,
                                    void *noalias_dep_list)
{
    run(gtid, task);
    return TASK_CURRENT_NOT_QUEUED;
}

void __kmpc_omp_wait_deps(ident_t *loc, kmp_int32 gtid, kmp_int32 ndeps,
                          void *dep_list, kmp_int32 ndeps_noalias,
                          void *noalias_dep_list) {}

kmp_int32 __kmpc_omp_taskwait(ident_t *loc, kmp_int32 gtid) { return 0; }

kmp_int32 __kmpc_omp_taskyield(ident_t *loc, kmp_int32 gtid, int end_part)
{
    return 0;
}

void __kmpc_taskgroup(ident_t *loc, kmp_int32 gtid) {}
void __kmpc_end_taskgroup(ident_t *loc, kmp_int32 gtid) {}

/* affinity(...) is a hint about where a task should run; it runs here. */
kmp_int32 __kmpc_omp_reg_task_with_affinity(ident_t *loc, kmp_int32 gtid,
                                            kmp_task_t *task,
                                            kmp_int32 naffins,
                                            void *affin_list)
{
    return 0;
}
