/*
 * shim_omp_api.c - the OpenMP runtime library routines (omp.h) for the
 * team, the internal control variables, teams on the host, devices as the
 * host sees them, pause, omp_display_env, tools and the wall clock.
 * Locks, allocators, places and affinity, and device memory are in their
 * own files.  Thread numbers are team-wide (every node); omp_get_num_procs
 * counts the processors of every node, assuming nodes alike.  There are no
 * offload devices (the host is device 0 = omp_get_num_devices()), one
 * team (no teams construct); nested active regions get teams inside their
 * node (fj_nested.c).
 *
 * Layer: compiler-shim.  Any application thread, before start-up too
 * (then as one thread on one node).
 */
#include <omp.h>
#include <time.h>
#include <unistd.h>

#include "dsm.h"
#include "forkjoin.h"
#include "forkjoin_task.h"
#include "shim_alloc.h"
#include "shim_kmp.h"

SHIM_EXPORT void omp_set_num_threads(int n) { fj_icv_set_nthreads(n); }
SHIM_EXPORT int omp_get_num_threads(void) { return fj_num_threads(); }
SHIM_EXPORT int omp_get_max_threads(void) { return fj_icv_nthreads(); }
SHIM_EXPORT int omp_get_thread_num(void) { return fj_thread_num(); }
SHIM_EXPORT int omp_in_parallel(void) { return fj_active_level() > 0; }
SHIM_EXPORT int omp_in_final(void) { return fj_in_final(); }
SHIM_EXPORT int omp_get_level(void) { return fj_level(); }
SHIM_EXPORT int omp_get_active_level(void) { return fj_active_level(); }
SHIM_EXPORT int omp_get_thread_limit(void) { return fj_icv_thread_limit(); }

SHIM_EXPORT int omp_get_ancestor_thread_num(int level)
{
    return fj_ancestor_thread_num(level);
}

SHIM_EXPORT int omp_get_team_size(int level) { return fj_team_size(level); }

SHIM_EXPORT int omp_get_num_procs(void)
{
    const int *cpus;
    int nodes = fj_started() ? dsm_num_nodes() : 1;
    return fj_node_cpus(&cpus) * nodes;
}

SHIM_EXPORT void omp_set_dynamic(int dynamic) { fj_icv_set_dynamic(dynamic); }
SHIM_EXPORT int omp_get_dynamic(void) { return fj_icv_dynamic(); }

/* Deprecated: nesting is max-active-levels above one. */
SHIM_EXPORT void omp_set_nested(int nested) { fj_icv_set_nested(nested); }
SHIM_EXPORT int omp_get_nested(void)
{
    return fj_icv_max_active_levels() > 1;
}

SHIM_EXPORT void omp_set_max_active_levels(int levels)
{
    fj_icv_set_max_active_levels(levels);
}

SHIM_EXPORT int omp_get_max_active_levels(void)
{
    return fj_icv_max_active_levels();
}

SHIM_EXPORT void omp_set_schedule(omp_sched_t kind, int chunk)
{
    fj_icv_set_schedule((int)kind, chunk);
}

SHIM_EXPORT void omp_get_schedule(omp_sched_t *kind, int *chunk)
{
    int k, c;
    fj_icv_schedule(&k, &c);
    *kind = (omp_sched_t)k;
    *chunk = c;
}

SHIM_EXPORT int omp_get_supported_active_levels(void)
{
    return fj_supported_active_levels();
}

/* ---- devices: the host is the only one ---------------------------------- */

SHIM_EXPORT int omp_get_num_devices(void) { return 0; }
/* The host is device number omp_get_num_devices(). */
SHIM_EXPORT int omp_get_initial_device(void) { return 0; }
SHIM_EXPORT int omp_get_device_num(void) { return 0; }
SHIM_EXPORT int omp_is_initial_device(void) { return 1; }

SHIM_EXPORT int omp_get_default_device(void)
{
    return fj_icv_default_device();
}

SHIM_EXPORT void omp_set_default_device(int device)
{
    fj_icv_set_default_device(device);
}

/* ---- teams on the host (fj_teams.c); the ICVs are kept for the program -- */

SHIM_EXPORT int omp_get_num_teams(void) { return fj_num_teams(); }
SHIM_EXPORT int omp_get_team_num(void) { return fj_team_num(); }
SHIM_EXPORT int omp_get_max_teams(void) { return fj_icv_num_teams(); }
SHIM_EXPORT void omp_set_num_teams(int num_teams)
{
    fj_icv_set_num_teams(num_teams);
}
SHIM_EXPORT int omp_get_teams_thread_limit(void)
{
    return fj_icv_teams_thread_limit();
}
SHIM_EXPORT void omp_set_teams_thread_limit(int limit)
{
    fj_icv_set_teams_thread_limit(limit);
}

/* ---- pause: the host device only ------------------------------------------ */

static int pause_host(int kind)
{
    int failed = fj_pause(kind);
    if (!failed && kind == omp_pause_hard)
        shim_alloc_reset_default();
    return failed;
}

SHIM_EXPORT int omp_pause_resource(omp_pause_resource_t kind, int device)
{
    if (device != omp_get_initial_device())
        return 1;           /* no such device */
    return pause_host((int)kind);
}

SHIM_EXPORT int omp_pause_resource_all(omp_pause_resource_t kind)
{
    return pause_host((int)kind);
}

SHIM_EXPORT int __kmpc_pause_resource(int kind);
int __kmpc_pause_resource(int kind) { return pause_host(kind); }

/* ---- the environment and tools ---------------------------------------- */

SHIM_EXPORT void omp_display_env(int verbose) { fj_display_env(verbose); }

/* No OMPT tool is ever attached. */
SHIM_EXPORT int omp_control_tool(int command, int modifier, void *arg)
{
    return omp_control_tool_notool;
}

/* OMP_MAX_TASK_PRIORITY (default 0: priority clauses change nothing). */
SHIM_EXPORT int omp_get_max_task_priority(void)
{
    return fj_task_max_priority();
}
/* cancel-var (OMP_CANCELLATION). */
SHIM_EXPORT int omp_get_cancellation(void) { return fj_cancellation(); }

SHIM_EXPORT double omp_get_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

SHIM_EXPORT double omp_get_wtick(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
        return 1e-9;
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}
