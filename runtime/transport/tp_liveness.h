/*
 * tp_liveness.h - the bootstrap sockets after wire-up: barrier, BYE,
 * ABORT, heartbeats, peer failure (tp_liveness.c).
 *
 * Layer: transport (internal).
 */
#ifndef TP_LIVENESS_H
#define TP_LIVENESS_H

#include <poll.h>

#include "tp_source.h"
#include "transport.h"

/* Wire-up barrier: READY to rank 0, GO back; progresses the worker. */
dsm_status_t tp_live_barrier(void);
/* BYE exchange of dsm_tp_finalize; progresses the worker. */
void tp_live_goodbye(void);
/* Fill fds with the sockets to watch; returns how many (at most size). */
int tp_live_fds(struct pollfd *fds, int *peer_of_fd);
/* Read whatever arrived on peer's socket; peer failure ends the job. */
void tp_live_readable(int peer);
/* The bootstrap sockets as a progress source: nothing to poll each round;
 * its hooks give the sockets to watch and read a readable one (peer
 * failure ends the job), for whichever thread sleeps or checks them. */
extern const tp_source_t tp_live_source;
/* Heartbeats, from the progress thread: tp_live_heartbeat_start when it
 * starts; tp_live_heartbeat at every turn sends the heartbeats that are due
 * and ends the job when a peer has sent nothing for DSM_TIMEOUT; returns
 * the milliseconds until it is due again. */
void tp_live_heartbeat_start(void);
int tp_live_heartbeat(void);
/* Peer failed: rank 0 tells the others which, then the job ends. */
void tp_live_peer_failed(int peer, const char *why)
    __attribute__((noreturn));

#endif
