/*
 * tp_direct_copy.h - the copy behind a get from a mapped same-host peer
 * (tp_direct_copy.c).
 *
 * Layer: transport (internal).
 */
#ifndef TP_DIRECT_COPY_H
#define TP_DIRECT_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "tp_wire.h"
#include "transport.h"

/* Keep the descriptors of the segments tp_direct_map mapped for rank. */
void tp_direct_copy_open(int rank, const tp_record_t *peer,
                         const tp_record_t *mine);
void tp_direct_copy_close(void);
/* Copy [offset, offset+len) of rank's mapped segment seg to local: the
 * file copy for pages of an offered segment of ours that no get wrote
 * before, memcpy otherwise.  Any thread, the fault handler included. */
void tp_direct_copy(int rank, dsm_tp_segment_t seg, uint64_t offset,
                    void *local, size_t len);
/* The descriptor kept for rank's mapped segment seg (read-only), or -1. */
int tp_direct_copy_peer_fd(int rank, dsm_tp_segment_t seg);

#endif
