/*
 * fj_partials.h - reduction partial results sent from every node to node 0
 * (see fj_partials.c).
 *
 * Layer: forkjoin (internal).  fj_partials_register: start-up, before the
 * transport starts.  The others: the combining thread of a node.
 */
#ifndef FJ_PARTIALS_H
#define FJ_PARTIALS_H

#include <stddef.h>
#include <stdint.h>

/* Reductions that may take this path between two team barriers. */
#define FJ_RED_SLOTS 4
/* Packed bytes of one node's partial result, at most. */
#define FJ_RED_MAX_BYTES 512

void fj_partials_register(void);
/* A node other than 0: its partial result of reduction seq of region;
 * bytes must be private memory (it is copied under a lock the PULL
 * handler takes, and handed to the transport). */
void fj_partials_send(uint64_t region, uint64_t seq, const void *bytes,
                      size_t len);
/* Node 0: wait for src's partial result (polling the transport, bounded by
 * DSM_TIMEOUT); the bytes stay valid until fj_partials_release. */
const void *fj_partials_wait(int src, uint64_t region, uint64_t seq,
                             size_t len);
void fj_partials_release(int src, uint64_t seq);
/* A node other than 0: send a partial result kept back for the next
 * arrival now (before anything else that may wait for node 0); take it
 * for a barrier's or the join's arrival instead: *len bytes (0 when none
 * is kept) in a buffer of the calling thread, valid until its next call. */
#define FJ_PARTIAL_MSG_MAX (16 + FJ_RED_MAX_BYTES)
void fj_partials_flush(void);
const void *fj_partials_take(size_t *len);

#endif
