/*
 * launch_env.h - the environment each node starts with.
 *
 * Layer: launcher.  Entry points: dsm_launch_env_build, dsm_launch_env_free.
 * Called in dsmrun before each fork, so that the child only has to pass the
 * finished array to execve (nothing between fork and exec allocates).
 */
#ifndef LAUNCH_ENV_H
#define LAUNCH_ENV_H

#include "dsm.h"

typedef struct dsm_launch_env_values {
    int size;                  /* DSM_SIZE */
    int threads;               /* DSM_THREADS */
    const char *rendezvous;    /* DSM_RENDEZVOUS, "HOST:PORT" */
    int rendezvous_fd;         /* DSM_RENDEZVOUS_FD, rank 0 only */
    const char *token;         /* DSM_TOKEN */
    const char *job_id;        /* DSM_JOB_ID */
    const char *ucx_posix_dir; /* UCX_POSIX_DIR, or NULL to leave it alone */
    int activity_fd;           /* DSM_ACTIVITY_FD, or -1 for none */
    const char *ucx_net_devices; /* UCX_NET_DEVICES, or NULL to leave it */
} dsm_launch_env_values_t;

/* UCX_NET_DEVICES is padded with commas (empty list entries, which UCX
 * skips) to this many characters, so that its string has the same length
 * on hosts whose interfaces have names of different lengths. */
#define DSM_LAUNCH_NET_DEVICES_WIDTH 127

/* dsmrun's own environment, minus the variables listed above, plus those
 * variables for node `rank`.  DSM_RENDEZVOUS_FD is removed for every other
 * rank so that no node believes it owns a socket it did not inherit.  The
 * result is one allocation: free it with dsm_launch_env_free.
 * DSM_ERR_INVALID if ucx_net_devices is longer than
 * DSM_LAUNCH_NET_DEVICES_WIDTH. */
dsm_status_t dsm_launch_env_build(const dsm_launch_env_values_t *values,
                                  int rank, char ***envp);
void dsm_launch_env_free(char **envp);

#endif
