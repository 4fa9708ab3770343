/*
 * shim_taskloop.c - taskloop in the libomp ABI (__kmpc_taskloop, and
 * __kmpc_taskloop_5 with the strict modifier of OpenMP 5.1): the
 * compiler's pattern task is copied once per chunk of iterations, each
 * copy gets its bounds and, through the compiler's task_dup function, its
 * firstprivate copies and whether it runs the last iteration
 * (lastprivate); the copies are submitted as tasks (run at once with
 * if(0)), inside a taskgroup unless nogroup.
 *
 * Chunking as libomp does it: grainsize(g) makes tc / g chunks of between
 * g and 2g - 1 iterations (the first tc % chunks one longer); with strict,
 * chunks of exactly g and a shorter last one; num_tasks(n) makes
 * min(n, tc) chunks; neither makes ten per thread that runs the node's
 * tasks.  clang 14 emits the taskgroup itself and passes nogroup = 1.
 *
 * Layer: compiler-shim.  Application threads.
 */
#include <string.h>

#include "base_log.h"
#include "forkjoin.h"
#include "forkjoin_task.h"
#include "shim_kmp.h"
#include "shim_task_abi.h"

typedef void (*task_dup_t)(kmp_task_t *dst, kmp_task_t *src,
                           kmp_int32 lastpriv);

SHIM_EXPORT void __kmpc_taskloop(ident_t *loc, kmp_int32 gtid,
                                 kmp_task_t *task, kmp_int32 if_val,
                                 kmp_uint64 *lb, kmp_uint64 *ub, kmp_int64 st,
                                 kmp_int32 nogroup, kmp_int32 sched,
                                 kmp_uint64 grainsize, void *task_dup);
SHIM_EXPORT void __kmpc_taskloop_5(ident_t *loc, kmp_int32 gtid,
                                   kmp_task_t *task, kmp_int32 if_val,
                                   kmp_uint64 *lb, kmp_uint64 *ub,
                                   kmp_int64 st, kmp_int32 nogroup,
                                   kmp_int32 sched, kmp_uint64 grainsize,
                                   kmp_int32 modifier, void *task_dup);

enum { SCHED_NONE = 0, SCHED_GRAINSIZE = 1, SCHED_NUM_TASKS = 2 };

/* Iterations of lb..ub by st, in unsigned arithmetic as libomp counts
 * them (an empty signed loop has ub = lb - 1: 0 iterations). */
static kmp_uint64 trip_count(kmp_uint64 lower, kmp_uint64 upper,
                             kmp_int64 st)
{
    if (st == 1)
        return upper - lower + 1;
    if (st < 0)
        return (lower - upper) / (kmp_uint64)(-st) + 1;
    return (upper - lower) / (kmp_uint64)st + 1;
}

static void taskloop(ident_t *loc, kmp_task_t *task, kmp_int32 if_val,
                     kmp_uint64 *lb, kmp_uint64 *ub, kmp_int64 st,
                     kmp_int32 nogroup, kmp_int32 sched, kmp_uint64 value,
                     int strict, void *task_dup)
{
    const char *where = shim_where(loc);
    char *base = (char *)task;
    size_t lb_at = (size_t)((char *)lb - base), ub_at = (size_t)((char *)ub - base);
    if (lb_at + sizeof *lb > sizeof(kmp_taskloop_task_t) ||
        ub_at + sizeof *ub > sizeof(kmp_taskloop_task_t))
        dsm_fatal("taskloop at %s: the loop bounds are not in its task",
                  where);
    if (st == 0)
        dsm_fatal("taskloop at %s: a stride of 0", where);
    kmp_uint64 lower = *lb, upper = *ub;
    kmp_uint64 tc = trip_count(lower, upper, st);

    if (fj_task_flags(task) & FJ_TASK_HAS_PRIORITY)
        fj_task_set_priority(task,
                             ((kmp_task_head_t *)task)->data2.priority);
    if (!nogroup)
        fj_taskgroup_begin();

    kmp_uint64 chunks = 0, grain = 0, extras = 0, last = 0;
    if (tc > 0) {
        if (sched == SCHED_GRAINSIZE && value == 0)
            value = 1;
        if (sched == SCHED_GRAINSIZE && strict) {
            grain = value < tc ? value : tc;
            chunks = (tc + grain - 1) / grain;
            last = tc - grain * (chunks - 1);
        } else {
            if (sched == SCHED_GRAINSIZE) {
                chunks = value > tc ? 1 : tc / value;
            } else {
                chunks = sched == SCHED_NUM_TASKS
                             ? value
                             : (kmp_uint64)fj_task_context_threads() * 10;
                if (chunks == 0)
                    chunks = 1;
                if (chunks > tc)
                    chunks = tc;
            }
            grain = tc / chunks;
            extras = tc % chunks;
        }
    }

    kmp_uint64 start = 0;
    for (kmp_uint64 i = 0; i < chunks; i++) {
        kmp_uint64 count = grain + (i < extras);
        if (strict && i == chunks - 1)
            count = last;
        void *shareds;
        kmp_task_t *copy = fj_task_clone(task, &shareds);
        kmp_task_head_t *head = (kmp_task_head_t *)copy;
        head->shareds = shareds;
        kmp_uint64 first = lower + start * (kmp_uint64)st;
        kmp_uint64 end = first + (count - 1) * (kmp_uint64)st;
        memcpy((char *)copy + lb_at, &first, sizeof first);
        memcpy((char *)copy + ub_at, &end, sizeof end);
        if (task_dup)
            ((task_dup_t)task_dup)(copy, task, i == chunks - 1);
        if (if_val)
            fj_task_submit(copy, 0, NULL);
        else
            fj_task_run_undeferred(copy);
        start += count;
    }
    fj_task_discard(task);
    if (!nogroup)
        fj_taskgroup_end();
}

void __kmpc_taskloop(ident_t *loc, kmp_int32 gtid, kmp_task_t *task,
                     kmp_int32 if_val, kmp_uint64 *lb, kmp_uint64 *ub,
                     kmp_int64 st, kmp_int32 nogroup, kmp_int32 sched,
                     kmp_uint64 grainsize, void *task_dup)
{
    taskloop(loc, task, if_val, lb, ub, st, nogroup, sched, grainsize, 0,
             task_dup);
}

void __kmpc_taskloop_5(ident_t *loc, kmp_int32 gtid, kmp_task_t *task,
                       kmp_int32 if_val, kmp_uint64 *lb, kmp_uint64 *ub,
                       kmp_int64 st, kmp_int32 nogroup, kmp_int32 sched,
                       kmp_uint64 grainsize, kmp_int32 modifier,
                       void *task_dup)
{
    taskloop(loc, task, if_val, lb, ub, st, nogroup, sched, grainsize,
             modifier != 0, task_dup);
}
