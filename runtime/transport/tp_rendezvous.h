/*
 * tp_rendezvous.h - the TCP bootstrap: rank 0 accepts, the others join
 * (tp_rendezvous.c).
 *
 * Layer: transport (internal).
 */
#ifndef TP_RENDEZVOUS_H
#define TP_RENDEZVOUS_H

#include "tp_wire.h"

/* Exchange node records: on return table[r] describes rank r (the pointers
 * point into *storage, which the caller frees) and socks[r] is the
 * bootstrap socket to r (rank 0: one per other rank; others: socks[0]). */
dsm_status_t tp_rendezvous(const tp_record_t *mine, tp_record_t *table,
                           int *socks, void **storage);

#endif
