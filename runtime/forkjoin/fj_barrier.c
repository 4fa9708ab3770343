/*
 * fj_barrier.c - the team barrier: the node's members meet locally, the
 * last to arrive takes the node through one cluster-wide dsm_barrier (a
 * release and an acquire: every write before it is visible after it), then
 * releases the others.  A barrier is a task scheduling point: the node's
 * members run its queued tasks while they wait, and the node goes to the
 * global part only once every task its members made is complete
 * (fj_task_barrier_gather; tasks never leave their node).
 *
 * Layer: forkjoin.  fj_team_barrier: members of the current region.
 * fj_global_barrier (fj_rtstack.c) is called by one thread per node at a
 * time: the leader at fork and join, the last local arrival inside a
 * region.
 */
#include "coherence.h"
#include "fj_internal.h"
#include "fj_task.h"

void fj_team_barrier(fj_thread_t *self)
{
    fj_team_t *team = self->team;
    self->barriers++;
    /* every loop met so far is finished everywhere after this barrier */
    self->loops_safe = self->loops;
    /* and node 0 has combined every reduction's partial results */
    self->reductions_safe = self->reductions;
    uint32_t gen = dsm_local_barrier_gen(&team->bar);
    if (!fj_task_barrier_gather(self, gen))
        return;             /* another member completed it */
    /* the last generation of a cancelled region: no cluster barrier */
    if (!fj_cancel_barrier_last(team) && team->nodes > 1) {
        dsm_coh_epoch_next((uintptr_t)self->barrier_label);
        fj_global_barrier();
    }
    dsm_local_barrier_release(&team->bar, gen);
    fj_task_barrier_release(team);
}

void fj_barrier(void) { fj_barrier_at(NULL); }

void fj_barrier_at(const void *construct)
{
    fj_thread_t *self = fj_self();
    if (!fj_alone(self)) {
        self->barrier_label = construct;
        fj_team_barrier(self);
        self->barrier_label = NULL;
    } else {
        fj_task_alone_drain();
    }
}
