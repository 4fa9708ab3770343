/*
 * tp_direct.h - same-host peers' segments mapped here (tp_direct.c).
 *
 * Layer: transport (internal).
 */
#ifndef TP_DIRECT_H
#define TP_DIRECT_H

#include "tp_wire.h"

/* Fill in this node's netns, pid and offered descriptors. */
void tp_direct_identity(tp_record_t *mine);
/* Map what peer offers if it runs on this host (sets peers[rank].direct). */
void tp_direct_map(int rank, const tp_record_t *peer, const tp_record_t *mine);
void tp_direct_unmap(void);
/* Do peer and this node run on one host: same kernel and network
 * namespace (processes in other namespaces stand for other hosts)? */
int tp_same_host(const tp_record_t *peer, const tp_record_t *mine);

#endif
