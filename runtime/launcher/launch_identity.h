/*
 * launch_identity.h - the job's identity: its id and its secret token.
 *
 * Layer: launcher.  Entry points: dsm_launch_make_job_id,
 * dsm_launch_make_token.  Called once by dsmrun before the nodes start.
 * The token authenticates the nodes to each other at wire-up; it travels
 * only in the nodes' environment (DSM_TOKEN) and is never printed.
 */
#ifndef LAUNCH_IDENTITY_H
#define LAUNCH_IDENTITY_H

#include "dsm.h"

#define DSM_LAUNCH_TOKEN_BYTES 16                        /* 128 bits */
#define DSM_LAUNCH_TOKEN_CHARS (2 * DSM_LAUNCH_TOKEN_BYTES)
#define DSM_LAUNCH_JOB_ID_MAX  32

/* "<dsmrun pid>.<8 random hex digits>": unique among concurrent jobs, so
 * that a job's processes can be found by their DSM_JOB_ID. */
dsm_status_t dsm_launch_make_job_id(char job_id[DSM_LAUNCH_JOB_ID_MAX]);

/* 128 bits from getrandom(2) as 32 lowercase hex digits. */
dsm_status_t dsm_launch_make_token(char token[DSM_LAUNCH_TOKEN_CHARS + 1]);

#endif
