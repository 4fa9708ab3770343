/*
 * launch_activity.h - the launcher's side of the activity board
 * (base_activity.h): creates it before the nodes start, and says what a
 * node was doing when it ended.
 *
 * Layer: launcher.  dsmrun's main thread, or the node agent's (one board
 * per process).  The hang report (dsm_launch_activity_report) reads the
 * board of running nodes: an entry may be read while its thread changes
 * it, and the line then shows the old or the new activity, or a mix of
 * both words of one record, never out-of-bounds text.  The board is a memfd without close-on-exec, so every
 * node started by that process inherits it (DSM_ACTIVITY_FD names it):
 * dsmrun's board serves the nodes on its machine, and on another host the
 * node agent makes one for its node and names the activity when it
 * reports the node's death.
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

/* The hang report's lines for node rank, one per thread with an entry,
 * on stderr: "node R[ on host H] thread T (tid N): ACTIVITY"; a node
 * without entries (or without a board) gets one line saying so. */
void dsm_launch_activity_report(int rank, const char *host);

/* Unmaps and closes the board. */
void dsm_launch_activity_destroy(void);

#endif
