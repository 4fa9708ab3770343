/*
 * launch_activity.h - dsmrun's side of the activity board
 * (base_activity.h): creates it before the nodes start, and says what a
 * node was doing when it ended.
 *
 * Layer: launcher.  dsmrun's main thread only.  The board is a memfd
 * without close-on-exec, so every node started on this machine inherits it
 * (DSM_ACTIVITY_FD names it); nodes started elsewhere have no board and
 * their failures are named without an activity.
 */
#ifndef LAUNCH_ACTIVITY_H
#define LAUNCH_ACTIVITY_H

#include <stddef.h>

#include "dsm.h"

/* Creates the board for `nodes` nodes; *fd is the descriptor the nodes
 * inherit.  DSM_ERR_IO (errno set) if it cannot. */
dsm_status_t dsm_launch_activity_create(int nodes, int *fd);

/* What node `rank` was doing, as text ("" if unknown). */
size_t dsm_launch_activity_describe(int rank, char *buf, size_t len);

/* Unmaps and closes the board. */
void dsm_launch_activity_destroy(void);

#endif
