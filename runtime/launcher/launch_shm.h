/*
 * launch_shm.h - removes the shared memory a job leaves behind.
 *
 * Layer: launcher.  Entry points: dsm_launch_shm_dir_needed and
 * dsm_launch_shm_dir_create (before the nodes start),
 * dsm_launch_shm_dir_remove and dsm_launch_sysv_remove (after every node
 * has been reaped).  dsmrun's main thread only.
 *
 * What UCX 1.13 leaves when a node is SIGKILLed (checked with ucx_perftest
 * on this machine):
 *  - posix transport with the default UCX_POSIX_USE_PROC_LINK=y: nothing;
 *    each file is unlinked right after creation and peers open it through
 *    /proc/PID/fd.
 *  - posix with UCX_POSIX_USE_PROC_LINK=n: its files stay in UCX_POSIX_DIR
 *    (default /dev/shm) as ucx_shm_posix_<random hex>; nothing in the name
 *    tells which job made them.
 *  - sysv: each segment is marked for removal (IPC_RMID) right after it is
 *    attached, so only a node killed between shmget and shmctl leaks one.
 * Hence: when proc links are off (and UCX_POSIX_DIR is not the user's),
 * the job gets a private UCX_POSIX_DIR, /dev/shm/dsmomp-JOBID (mode 0700),
 * emptied and removed at the end, which can only ever touch this job's
 * files.  With the default settings no directory is made, so even a
 * SIGKILLed dsmrun leaves nothing in /dev/shm.  A SysV segment is removed
 * when it is ours, was created by a node (its creator pid) since the job
 * started, and nobody is attached to it.
 */
#ifndef LAUNCH_SHM_H
#define LAUNCH_SHM_H

#include <stddef.h>
#include <time.h>

#include "dsm.h"
#include "launch_supervise.h"

/* Non-zero when the environment makes UCX keep its files (see above). */
int dsm_launch_shm_dir_needed(void);

/* Creates the job's directory; DSM_ERR_IO (errno set) if it cannot. */
dsm_status_t dsm_launch_shm_dir_create(const char *job_id, char *path,
                                       size_t path_len);

/* Unlinks the files in the directory, then the directory. */
void dsm_launch_shm_dir_remove(const char *path, int verbose);

/* Removes unattached SysV segments created by the nodes since `since`. */
void dsm_launch_sysv_remove(const dsm_launch_node_t *nodes, int node_count,
                            time_t since, int verbose);

#endif
