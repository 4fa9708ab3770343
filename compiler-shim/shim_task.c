/*
 * shim_task.c - explicit tasks in the libomp ABI: allocation and
 * submission (with dependences), if(0) tasks, taskwait, taskyield,
 * taskgroup, detach and omp_fulfill_event, and the memory clang 14 asks for
 * depobj.  Translates the compiler's descriptors and flags for the
 * fork-join layer's tasks (forkjoin_task.h), which defer them and run them
 * on the creating node's threads.
 *
 * Layer: compiler-shim.  Application threads (inside task entries too).
 */
#include <stdlib.h>

#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
#include "forkjoin_task.h"
#include "shim_kmp.h"
#include "shim_task_abi.h"

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
    kmp_depend_info_t *dep_list, kmp_int32 ndeps_noalias,
    kmp_depend_info_t *noalias_dep_list);
SHIM_EXPORT void __kmpc_omp_wait_deps(ident_t *loc, kmp_int32 gtid,
                                      kmp_int32 ndeps,
                                      kmp_depend_info_t *dep_list,
                                      kmp_int32 ndeps_noalias,
                                      kmp_depend_info_t *noalias_dep_list);
SHIM_EXPORT void __kmpc_omp_taskwait_deps_51(
    ident_t *loc, kmp_int32 gtid, kmp_int32 ndeps,
    kmp_depend_info_t *dep_list, kmp_int32 ndeps_noalias,
    kmp_depend_info_t *noalias_dep_list, kmp_int32 has_no_wait);
SHIM_EXPORT kmp_int32 __kmpc_omp_reg_task_with_affinity(
    ident_t *loc, kmp_int32 gtid, kmp_task_t *task, kmp_int32 naffins,
    void *affin_list);
SHIM_EXPORT kmp_int32 __kmpc_omp_taskwait(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT kmp_int32 __kmpc_omp_taskyield(ident_t *loc, kmp_int32 gtid,
                                           int end_part);
SHIM_EXPORT void __kmpc_taskgroup(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void __kmpc_end_taskgroup(ident_t *loc, kmp_int32 gtid);
SHIM_EXPORT void *__kmpc_task_allow_completion_event(ident_t *loc,
                                                     kmp_int32 gtid,
                                                     kmp_task_t *task);
SHIM_EXPORT void omp_fulfill_event(void *event);

/* libomp's answer when the task did not stay queued. */
#define TASK_CURRENT_NOT_QUEUED 0

/* The task's C++ firstprivate objects are destroyed by the thunk the
 * compiler stored in its head (libomp calls it as the task finishes). */
static int32_t run_destructors(int32_t gtid, void *payload)
{
    kmp_task_head_t *head = payload;
    if (head->data1.destructors)
        head->data1.destructors(gtid, payload);
    return 0;
}

kmp_task_t *__kmpc_omp_task_alloc(ident_t *loc, kmp_int32 gtid,
                                  kmp_int32 flags, size_t sizeof_kmp_task_t,
                                  size_t sizeof_shareds,
                                  kmp_routine_entry_t task_entry)
{
    const char *where = shim_where(loc);
    if (sizeof_kmp_task_t < sizeof(kmp_task_head_t))
        dsm_fatal("the task at %s is smaller than its head (%zu bytes)",
                  where, sizeof_kmp_task_t);
    unsigned fj_flags = 0;
    if (!(flags & KMP_TASK_TIED))
        fj_flags |= FJ_TASK_UNTIED;
    if (flags & KMP_TASK_FINAL)
        fj_flags |= FJ_TASK_FINAL;
    if (flags & KMP_TASK_PRIORITY)
        fj_flags |= FJ_TASK_HAS_PRIORITY;
    void *shareds;
    kmp_task_head_t *head = fj_task_alloc(
        fj_flags, sizeof_kmp_task_t, sizeof(kmp_task_head_t),
        sizeof_shareds, (fj_task_entry_t)task_entry, &shareds, where);
    head->shareds = shareds;
    head->routine = task_entry;
    /* C++ firstprivate objects: the compiler stores the thunk that
     * destroys them after this returns */
    if (flags & KMP_TASK_DESTRUCTORS)
        fj_task_set_fini(head, run_destructors);
    return (kmp_task_t *)head;
}

/* The priority clause's value is stored after the allocation. */
static void take_priority(kmp_task_t *task)
{
    if (fj_task_flags(task) & FJ_TASK_HAS_PRIORITY)
        fj_task_set_priority(task,
                             ((kmp_task_head_t *)task)->data2.priority);
}

kmp_int32 __kmpc_omp_task(ident_t *loc, kmp_int32 gtid, kmp_task_t *task)
{
    take_priority(task);
    fj_task_submit(task, 0, NULL);
    return TASK_CURRENT_NOT_QUEUED;
}

void __kmpc_omp_task_begin_if0(ident_t *loc, kmp_int32 gtid,
                               kmp_task_t *task)
{
    fj_task_if0_begin(task);
}

void __kmpc_omp_task_complete_if0(ident_t *loc, kmp_int32 gtid,
                                  kmp_task_t *task)
{
    fj_task_if0_complete(task);
}

/* ---- dependences ------------------------------------------------------ */

#define STACK_DEPS 32

/* The dependences of both lists as the fork-join layer takes them; *out
 * is deps or a malloc'd array.  Returns the count. */
static int convert_deps(const char *where, kmp_int32 n1,
                        const kmp_depend_info_t *l1, kmp_int32 n2,
                        const kmp_depend_info_t *l2, fj_dep_t *deps,
                        fj_dep_t **out)
{
    int total = (n1 > 0 ? n1 : 0) + (n2 > 0 ? n2 : 0);
    *out = deps;
    if (total > STACK_DEPS) {
        *out = malloc((size_t)total * sizeof **out);
        if (!*out)
            dsm_fatal("out of memory for %d dependences at %s", total,
                      where);
    }
    int n = 0;
    for (int list = 0; list < 2; list++) {
        const kmp_depend_info_t *l = list ? l2 : l1;
        int count = list ? n2 : n1;
        for (int i = 0; i < count; i++) {
            uint8_t f = l[i].flags;
            fj_dep_kind_t kind;
            if (f & KMP_DEP_ALL)
                dsm_fatal("dsmomp: depend(omp_all_memory) is not supported "
                          "(at %s)", where);
            if (f & KMP_DEP_OUT)
                kind = FJ_DEP_OUT;
            else if (f & KMP_DEP_MTX)
                kind = FJ_DEP_MUTEXINOUTSET;
            else if (f & KMP_DEP_SET)
                kind = FJ_DEP_INOUTSET;
            else if (f & KMP_DEP_IN)
                kind = FJ_DEP_IN;
            else
                continue;
            (*out)[n++] = (fj_dep_t){(uintptr_t)l[i].base_addr, kind};
        }
    }
    return n;
}

kmp_int32 __kmpc_omp_task_with_deps(ident_t *loc, kmp_int32 gtid,
                                    kmp_task_t *task, kmp_int32 ndeps,
                                    kmp_depend_info_t *dep_list,
                                    kmp_int32 ndeps_noalias,
                                    kmp_depend_info_t *noalias_dep_list)
{
    fj_dep_t stack[STACK_DEPS], *deps;
    int n = convert_deps(shim_where(loc), ndeps, dep_list, ndeps_noalias,
                         noalias_dep_list, stack, &deps);
    take_priority(task);
    fj_task_submit(task, n, deps);
    if (deps != stack)
        free(deps);
    return TASK_CURRENT_NOT_QUEUED;
}

void __kmpc_omp_wait_deps(ident_t *loc, kmp_int32 gtid, kmp_int32 ndeps,
                          kmp_depend_info_t *dep_list,
                          kmp_int32 ndeps_noalias,
                          kmp_depend_info_t *noalias_dep_list)
{
    fj_dep_t stack[STACK_DEPS], *deps;
    int n = convert_deps(shim_where(loc), ndeps, dep_list, ndeps_noalias,
                         noalias_dep_list, stack, &deps);
    fj_task_wait_deps(n, deps);
    if (deps != stack)
        free(deps);
}

/* taskwait depend(...) [nowait]: waiting is a valid schedule of the nowait
 * form too (its dependences are met when the construct completes). */
void __kmpc_omp_taskwait_deps_51(ident_t *loc, kmp_int32 gtid,
                                 kmp_int32 ndeps,
                                 kmp_depend_info_t *dep_list,
                                 kmp_int32 ndeps_noalias,
                                 kmp_depend_info_t *noalias_dep_list,
                                 kmp_int32 has_no_wait)
{
    __kmpc_omp_wait_deps(loc, gtid, ndeps, dep_list, ndeps_noalias,
                         noalias_dep_list);
}

/* ---- scheduling points and taskgroups ----------------------------------- */

kmp_int32 __kmpc_omp_taskwait(ident_t *loc, kmp_int32 gtid)
{
    fj_taskwait();
    return 0;
}

kmp_int32 __kmpc_omp_taskyield(ident_t *loc, kmp_int32 gtid, int end_part)
{
    fj_taskyield();
    return 0;
}

void __kmpc_taskgroup(ident_t *loc, kmp_int32 gtid) { fj_taskgroup_begin(); }
void __kmpc_end_taskgroup(ident_t *loc, kmp_int32 gtid)
{
    fj_taskgroup_end();
}

/* affinity(...) is a hint about where a task should run: tasks run on
 * their creating node, which the specification allows. */
kmp_int32 __kmpc_omp_reg_task_with_affinity(ident_t *loc, kmp_int32 gtid,
                                            kmp_task_t *task,
                                            kmp_int32 naffins,
                                            void *affin_list)
{
    return 0;
}

/* ---- detach ---------------------------------------------------------------- */

void *__kmpc_task_allow_completion_event(ident_t *loc, kmp_int32 gtid,
                                         kmp_task_t *task)
{
    return fj_task_event(task, shim_where(loc));
}

void omp_fulfill_event(void *event) { fj_task_fulfill(event); }

