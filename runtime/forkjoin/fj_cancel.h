/*
 * fj_cancel.h - cancellation's state in a team and the hooks the other
 * fork-join modules call (fj_cancel.c; doc/design.md, "Cancellation").
 *
 * Layer: forkjoin (internal header).  The hooks run in application
 * threads; fj_cancel_register at start-up, before the transport starts.
 */
#ifndef FJ_CANCEL_H
#define FJ_CANCEL_H

#include <stdatomic.h>
#include <stdint.h>

struct fj_team;
struct fj_thread;
struct fj_task;

/* Cancellation of one team's region on this node.  parallel and ws are
 * tagged with the region they belong to and never reset for the
 * cluster's team: a CANCEL message for region r may arrive before this
 * node has taken the FORK of r. */
typedef struct fj_cancel_team {
    _Atomic uint64_t parallel;  /* the region whose parallel cancellation
                                   is active here (a team inside one node:
                                   1), 0: none */
    _Atomic uint64_t ws;        /* the cancelled work-sharing construct:
                                   region, barrier epoch and kind
                                   (fj_cancel.c), 0: none */
    _Atomic uint32_t ended;     /* members whose implicit task returned */
    _Atomic uint32_t done;      /* every member ended: proxies leave */
    uint64_t global;            /* cluster barriers this node took in the
                                   region (cancellation enabled) */
} fj_cancel_team_t;

/* Start-up: register the CANCEL message. */
void fj_cancel_register(void);
/* cancel-var (OMP_CANCELLATION). */
int fj_cancel_enabled(void);

/* A region starts: fj_team_setup (the cluster's team: parallel and ws
 * stay, tagged), fj_nested_fork (a team inside one node: all of it). */
void fj_cancel_team_setup(struct fj_team *team);
void fj_cancel_team_open_nested(struct fj_team *team);

/* fj_member_run, after the member's implicit task returned.  With
 * cancellation enabled the member stays in the team's barriers as a
 * proxy until every member of the node has ended: a member that left a
 * cancelled region early would otherwise leave the others waiting in a
 * barrier it never reaches. */
void fj_cancel_member_end(struct fj_thread *self);

/* fj_team_barrier, in the thread that completes the node's part: 1 when
 * every member has ended (the region's last generation: no cluster
 * barrier, the proxies leave), 0 to go on as usual. */
int fj_cancel_barrier_last(struct fj_team *team);

/* fj_leader_region, once every member of the node has ended: bring the
 * node to the same number of cluster barriers as every other node (a
 * cancelled region leaves them unequal), before the join.  Returns the
 * cluster barriers the node took in the region (self->barriers when
 * cancellation is disabled): node 0 names the join after it. */
uint64_t fj_cancel_region_end(struct fj_thread *self);

/* Node 0 after the join: 1 when the region was cancelled (its loop slots
 * and construct numbering were repaired; the caller must not advance
 * them by the master's counts). */
int fj_cancel_after_region(struct fj_thread *self);

/* Dispatch: the calling thread's loop is cancelled (hand out nothing). */
int fj_cancel_loop_cancelled(struct fj_thread *self);
/* Tasks: a task about to start for the first time is discarded. */
int fj_cancel_task_discarded(struct fj_task *t);
/* Doacross waits: the team's region is cancelled (the posting iteration
 * may never run). */
int fj_cancel_parallel_active(struct fj_thread *self);

#endif
