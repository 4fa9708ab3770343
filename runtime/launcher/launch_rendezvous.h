/*
 * launch_rendezvous.h - the listening socket that node 0 inherits.
 *
 * Layer: launcher.  Entry point: dsm_launch_rendezvous_listen, called once
 * by dsmrun before the nodes start.  Binding port 0 lets the kernel pick a
 * free port, and listening before any node exists means the other nodes
 * can connect as soon as they start: no port race, no retry loop.
 */
#ifndef LAUNCH_RENDEZVOUS_H
#define LAUNCH_RENDEZVOUS_H

#include <stdint.h>

#include "dsm.h"

#define DSM_LAUNCH_RENDEZVOUS_HOST "127.0.0.1"

/* A TCP socket bound to DSM_LAUNCH_RENDEZVOUS_HOST on a kernel-chosen port,
 * listening, close-on-exec (the child that must inherit it clears the
 * flag).  Returns DSM_ERR_IO with errno set on failure. */
dsm_status_t dsm_launch_rendezvous_listen(int backlog, int *fd,
                                          uint16_t *port);

#endif
