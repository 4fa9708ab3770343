/*
 * launch_hosts.h - the hosts of a multi-host job: parsing --hosts and
 * --hostfile, and placing the nodes on them.
 *
 * Layer: launcher.  Entry points: dsm_launch_hosts_from_list,
 * dsm_launch_hosts_from_file, dsm_launch_hosts_place,
 * dsm_launch_hosts_free.  Start-up only, in dsmrun (malloc, stderr).
 *
 * A host list is "a,b,c" or "a:2,b": a name (or address) and an optional
 * slot count, default 1.  A hostfile has one host per line, "NAME" or
 * "NAME SLOTS" or "NAME slots=SLOTS"; '#' starts a comment; blank lines are
 * skipped.  A blank entry in a list, a duplicate name, or a bad slot count
 * is an error naming it.  Nodes are placed in blocks: ranks 0..s0-1 on the
 * first host, the next s1 on the second, and so on.
 */
#ifndef LAUNCH_HOSTS_H
#define LAUNCH_HOSTS_H

#include "dsm.h"

#define DSM_LAUNCH_MAX_SLOTS 4096

typedef struct dsm_launch_host {
    char *name;
    int slots;
} dsm_launch_host_t;

typedef struct dsm_launch_hosts {
    dsm_launch_host_t *host;
    int count;
    int total_slots;
} dsm_launch_hosts_t;

/* Parse "a,b:2,c".  DSM_ERR_INVALID after one "dsmrun: ..." line. */
dsm_status_t dsm_launch_hosts_from_list(const char *list,
                                        dsm_launch_hosts_t *out);

/* Read a hostfile.  DSM_ERR_INVALID after one line naming the file (and
 * the line number when its content is wrong). */
dsm_status_t dsm_launch_hosts_from_file(const char *path,
                                        dsm_launch_hosts_t *out);

/* host_of_rank[r] = index of rank r's host, for `nodes` ranks.
 * DSM_ERR_INVALID (reported) when the hosts have fewer slots. */
dsm_status_t dsm_launch_hosts_place(const dsm_launch_hosts_t *hosts,
                                    int nodes, int *host_of_rank);

void dsm_launch_hosts_free(dsm_launch_hosts_t *hosts);

#endif
