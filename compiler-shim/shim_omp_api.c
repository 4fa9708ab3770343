/*
 * shim_omp_api.c - the OpenMP runtime library routines (omp.h) other than
 * locks: team and thread queries, internal control variables, wall clock.
 * Thread numbers are team-wide (every node); omp_get_num_procs counts the
 * processors of every node, assuming nodes alike.  There are no offload
 * devices, one team (no teams construct), no thread binding, and one
 * active level (nested regions run serialised).
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
    long procs = sysconf(_SC_NPROCESSORS_ONLN);
    int nodes = fj_started() ? dsm_num_nodes() : 1;
    return (int)(procs > 0 ? procs : 1) * nodes;
}

SHIM_EXPORT void omp_set_dynamic(int dynamic) { fj_icv_set_dynamic(dynamic); }
SHIM_EXPORT int omp_get_dynamic(void) { return fj_icv_dynamic(); }

/* Nested regions always run serialised. */
SHIM_EXPORT void omp_set_nested(int nested) {}
SHIM_EXPORT int omp_get_nested(void) { return 0; }

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

SHIM_EXPORT int omp_get_supported_active_levels(void) { return 1; }

SHIM_EXPORT int omp_get_num_devices(void) { return 0; }
SHIM_EXPORT int omp_get_default_device(void) { return 0; }
SHIM_EXPORT void omp_set_default_device(int device) {}
/* The host is device number omp_get_num_devices(). */
SHIM_EXPORT int omp_get_initial_device(void) { return 0; }
SHIM_EXPORT int omp_get_device_num(void) { return 0; }
SHIM_EXPORT int omp_get_num_teams(void) { return 1; }
SHIM_EXPORT int omp_get_team_num(void) { return 0; }
SHIM_EXPORT omp_proc_bind_t omp_get_proc_bind(void)
{
    return omp_proc_bind_false;
}
SHIM_EXPORT int omp_get_num_places(void) { return 0; }

/* OMP_MAX_TASK_PRIORITY (default 0: priority clauses change nothing). */
SHIM_EXPORT int omp_get_max_task_priority(void)
{
    return fj_task_max_priority();
}
SHIM_EXPORT int omp_get_cancellation(void) { return 0; }

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
