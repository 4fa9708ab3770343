/*
 * launch_netif.h - picks the IPv4 address node 0 listens on for the other
 * nodes of a multi-host job, and finds the interface each host reaches
 * that address through.
 *
 * Layer: launcher.  Entry points: dsm_launch_pick_address, called by the
 * node agent of rank 0 on its own host, before the node starts;
 * dsm_launch_interface_towards, called by every node agent before its
 * node starts.
 * Order: the named interface (--interface / DSM_INTERFACE); else the source
 * address of the route to `route_to` (the next host); else the address the
 * ssh connection came in on (SSH_CONNECTION) or the route to the host srun
 * ran on (SLURM_LAUNCH_NODE_IPADDR); else the first non-loopback address.
 */
#ifndef LAUNCH_NETIF_H
#define LAUNCH_NETIF_H

#include <stddef.h>

#include "dsm.h"

/* Writes the dotted address into addr (at least 16 bytes).  On failure
 * writes one line to `why` and returns DSM_ERR_INVALID. */
dsm_status_t dsm_launch_pick_address(const char *interface,
                                     const char *route_to, char *addr,
                                     size_t addr_len, char *why,
                                     size_t why_len);

/* The network interface whose IPv4 address is the source of this host's
 * route to `host` (a dotted address): on node 0's host, the interface
 * holding node 0's address itself.  Writes its name (at most IFNAMSIZ - 1
 * characters) into `name`.  On failure writes one line to `why` and
 * returns DSM_ERR_INVALID. */
dsm_status_t dsm_launch_interface_towards(const char *host, char *name,
                                          size_t name_len, char *why,
                                          size_t why_len);

#endif
