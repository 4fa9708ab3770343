/*
 * tp_counters.c - per-node statistics of the transport: messages and bytes
 * sent per active-message id, RMA operations and bytes, atomics.
 *
 * Layer: transport.  Entry points: tp_count_* (every send path, the fault
 * handler included: relaxed atomic adds only), dsm_tp_counters_get (any
 * thread; a snapshot, each counter read atomically but not all at once).
 */
#include <stdatomic.h>
#include <string.h>

#include "tp_internal.h"

static struct {
    atomic_uint_fast64_t am_sent[DSM_TP_AM_MAX_ID];
    atomic_uint_fast64_t am_bytes[DSM_TP_AM_MAX_ID];
    atomic_uint_fast64_t gets, get_bytes, puts, put_bytes, atomics;
} counters;

static inline void bump(atomic_uint_fast64_t *c, uint64_t v)
{
    atomic_fetch_add_explicit(c, v, memory_order_relaxed);
}

static inline uint64_t peek(atomic_uint_fast64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

void tp_count_am(unsigned id, size_t bytes)
{
    bump(&counters.am_sent[id], 1);
    bump(&counters.am_bytes[id], bytes);
}

void tp_count_get(size_t bytes)
{
    bump(&counters.gets, 1);
    bump(&counters.get_bytes, bytes);
}

void tp_count_put(size_t bytes)
{
    bump(&counters.puts, 1);
    bump(&counters.put_bytes, bytes);
}

void tp_count_atomic(void) { bump(&counters.atomics, 1); }

void tp_counters_reset(void)
{
    for (unsigned i = 0; i < DSM_TP_AM_MAX_ID; i++) {
        atomic_store_explicit(&counters.am_sent[i], 0, memory_order_relaxed);
        atomic_store_explicit(&counters.am_bytes[i], 0, memory_order_relaxed);
    }
    atomic_store_explicit(&counters.gets, 0, memory_order_relaxed);
    atomic_store_explicit(&counters.get_bytes, 0, memory_order_relaxed);
    atomic_store_explicit(&counters.puts, 0, memory_order_relaxed);
    atomic_store_explicit(&counters.put_bytes, 0, memory_order_relaxed);
    atomic_store_explicit(&counters.atomics, 0, memory_order_relaxed);
}

void dsm_tp_counters_get(dsm_tp_counters_t *out)
{
    dsm_tp_counters_t snap;
    memset(&snap, 0, sizeof snap);
    for (unsigned i = 0; i < DSM_TP_AM_MAX_ID; i++) {
        snap.am_sent[i] = peek(&counters.am_sent[i]);
        snap.am_bytes[i] = peek(&counters.am_bytes[i]);
    }
    snap.gets = peek(&counters.gets);
    snap.get_bytes = peek(&counters.get_bytes);
    snap.puts = peek(&counters.puts);
    snap.put_bytes = peek(&counters.put_bytes);
    snap.atomics = peek(&counters.atomics);
    *out = snap;
}
