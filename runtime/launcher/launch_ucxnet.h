/*
 * launch_ucxnet.h - the UCX network devices a node may use: the value
 * dsmrun gives UCX_NET_DEVICES.
 *
 * Layer: launcher.  Entry point: dsm_launch_ucx_net_devices, called before
 * the nodes start, unless the user set UCX_NET_DEVICES: by the node agent
 * of a multi-host job with the interface towards node 0's rendezvous
 * address, by dsmrun for a job on this machine with loopback
 * (DSM_LAUNCH_LOOPBACK).  UCX's TCP transport listens on every network
 * device it may use, without the job's token; restricted so, it listens
 * there only.
 * UCX_NET_DEVICES names network devices only: shared memory (posix,
 * sysv, cma) and self stay usable between nodes of one host.  RDMA ports
 * (InfiniBand, RoCE) are network devices too but open no listening
 * socket, so the active ones are kept, by UCX's names ("mlx5_0:1"), lest
 * the restriction move an InfiniBand cluster onto TCP.
 */
#ifndef LAUNCH_UCXNET_H
#define LAUNCH_UCXNET_H

#include <stddef.h>

#include "dsm.h"

/* The interface of a job on one machine. */
#define DSM_LAUNCH_LOOPBACK "lo"

/* Where the kernel lists RDMA devices: DEV/ports/N/state per port. */
#define DSM_LAUNCH_RDMA_SYSFS "/sys/class/infiniband"

/* Writes "INTERFACE[,DEV:PORT...]" into `value`: the interface, then every
 * port under `rdma_root` whose state is ACTIVE (none when the directory
 * does not exist).  DSM_ERR_INVALID if it does not fit in `len`. */
dsm_status_t dsm_launch_ucx_net_devices(const char *interface,
                                        const char *rdma_root, char *value,
                                        size_t len);

#endif
