/*
 * fj_barrier.c - the team barrier: the node's members meet locally, the
 * last to arrive takes the node through one cluster-wide dsm_barrier (a
 * release and an acquire: every write before it is visible after it), then
 * releases the others.
 *
 * Layer: forkjoin.  fj_team_barrier: members of the current region.
 * fj_global_barrier (fj_rtstack.c) is called by one thread per node at a
 * time: the leader at fork and join, the last local arrival inside a
 * region.
 */
#include "base_activity.h"
#include "fj_internal.h"
#include "fj_wait.h"

void fj_team_barrier(fj_thread_t *self)
{
    fj_team_t *team = self->team;
    self->barriers++;
    /* every loop met so far is finished everywhere after this barrier */
    self->loops_safe = self->loops;
    /* and node 0 has combined every reduction's partial results */
    self->reductions_safe = self->reductions;
    uint32_t gen = atomic_load_explicit(&team->bar_gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&team->bar_arrived, 1,
                                  memory_order_acq_rel) + 1 ==
        (uint32_t)team->local_count) {
        atomic_store_explicit(&team->bar_arrived, 0, memory_order_relaxed);
        if (team->nodes > 1)
            fj_global_barrier();
        atomic_store_explicit(&team->bar_gen, gen + 1, memory_order_release);
        if (team->local_count > 1)
            fj_wake_all(&team->bar_gen);
        return;
    }
    fj_wait_change_about(&team->bar_gen, gen,
                         "the other threads of this node at a barrier",
                         DSM_ACTIVITY_ABOUT_TEAM_BARRIER, team->region,
                         self->barriers);
}

void fj_barrier(void)
{
    fj_thread_t *self = fj_self();
    if (!fj_alone(self))
        fj_team_barrier(self);
}
