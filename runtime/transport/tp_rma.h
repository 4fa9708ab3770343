/*
 * tp_rma.h - get / put / flush (tp_rma.c); what remote atomics share.
 *
 * Layer: transport (internal).
 */
#ifndef TP_RMA_H
#define TP_RMA_H

#include <stddef.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include "transport.h"

/* Check (rank, seg, offset, len) and find the remote address and key.
 * For the calling rank the address is the local one. */
dsm_status_t tp_resolve(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        size_t len, uint64_t *raddr, ucp_rkey_h *rkey);

#endif
