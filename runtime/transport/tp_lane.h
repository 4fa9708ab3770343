/*
 * tp_lane.h - same-host message lanes (tp_lane.c).  The record format is
 * tp_wire.h's.
 *
 * Layer: transport (internal).
 */
#ifndef TP_LANE_H
#define TP_LANE_H

#include <stddef.h>

#include "tp_source.h"
#include "tp_wire.h"

/* Create this node's lane file (DSM_SAME_HOST_LANES; without it, or when
 * it cannot be made, every message goes through UCX).  deliver runs the
 * handler of each message that arrives (tp_am_dispatch: the lanes know
 * nothing of handlers). */
typedef void (*tp_lane_deliver_fn)(int src, unsigned id, const void *data,
                                   size_t len);
dsm_status_t tp_lane_open(tp_lane_deliver_fn deliver);
/* Fill in the lane file and wake pipe descriptors peers may open. */
void tp_lane_identity(tp_record_t *mine);
/* Set up the lanes with rank: read its ring in our file, map its file to
 * write ours, open its wake pipe.  Any failure leaves rank on UCX. */
void tp_lane_connect(int rank, const tp_record_t *peer,
                     const tp_record_t *mine);
void tp_lane_close(void);
/* Do messages to rank go through a lane? */
int tp_lane_reaches(int rank);
/* Send one message on the lane to rank.  Without TP_LANE_MAY_WAIT
 * (handlers): only if the ring has room now and no other thread is
 * writing, else DSM_ERR_BUSY; with it: waits for room, serving this
 * node's messages.  TP_LANE_LAZY: do not ring a sleeping receiver
 * (dsm_tp_am_send_lazy). */
#define TP_LANE_MAY_WAIT 1u
#define TP_LANE_LAZY     2u
dsm_status_t tp_lane_send(int rank, unsigned id, const void *hdr,
                          size_t hdr_len, const void *body, size_t body_len,
                          unsigned flags);
/* Run the handlers of every record that arrived; returns how many. */
int tp_lane_poll(void);
/* The lanes' progress source: polls tp_lane_poll each round; its hooks
 * publish the CPU a thread of this node waits on and say whether a peer
 * on a lane waits on it (the waits' yield decision), and ask senders to
 * ring the wake pipe while the progress thread sleeps. */
extern const tp_source_t tp_lane_source;

#endif
