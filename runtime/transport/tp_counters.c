/*
 * tp_counters.c - per-node statistics of the transport: messages and bytes
 * sent per active-message id, RMA operations and bytes, atomics.
 *
 * Each thread counts in a block of its own, with plain loads and stores:
 * a locked add right after a send is a full fence, which on x86 waits
 * until the message's cache line has been taken from the receiver (a
 * transfer, 50-150 ns on this kind of machine) - every message paid it
 * twice.  A thread claims its block at its first count (a compare-and-
 * swap on the number of blocks claimed, signal-safe); threads beyond COUNTER_BLOCKS share the
 * last one with atomic adds (blocks are not given back when a thread
 * ends: the threads that send are the job's pool, main and progress
 * threads, which live as long as it).  A snapshot sums the blocks; a
 * reset keeps the current sums as a baseline, so no thread's counter is
 * written by another.
 *
 * Layer: transport.  Entry points: tp_count_* (every send path, the fault
 * handler included: no locks, no allocation; a fault cannot interrupt a
 * count, which touches no sharable memory), dsm_tp_counters_get (any
 * thread; a snapshot, each counter read atomically but not all at once),
 * tp_counters_reset (wire-up, before any send).
 */
#include <stdatomic.h>
#include <string.h>

#include "tp_counters.h"
#include "tp_state.h"

#define COUNTER_BLOCKS 64   /* the last one is shared */

typedef struct counter_block {
    _Alignas(64) _Atomic uint64_t am_sent[DSM_TP_AM_MAX_ID];
    _Atomic uint64_t am_bytes[DSM_TP_AM_MAX_ID];
    _Atomic uint64_t gets, get_bytes, puts, put_bytes, atomics;
} counter_block_t;

static counter_block_t blocks[COUNTER_BLOCKS];
static _Atomic unsigned blocks_claimed;
static TP_THREAD_LOCAL counter_block_t *my_block;
static dsm_tp_counters_t baseline;

static counter_block_t *block(void)
{
    if (!my_block) {
        /* the count stops at the shared block: it never wraps */
        unsigned n = atomic_load_explicit(&blocks_claimed,
                                          memory_order_relaxed);
        while (n < COUNTER_BLOCKS - 1 &&
               !atomic_compare_exchange_weak_explicit(
                   &blocks_claimed, &n, n + 1, memory_order_relaxed,
                   memory_order_relaxed))
            ;
        my_block = &blocks[n < COUNTER_BLOCKS - 1 ? n : COUNTER_BLOCKS - 1];
    }
    return my_block;
}

static inline void bump(counter_block_t *b, _Atomic uint64_t *c, uint64_t v)
{
    if (b == &blocks[COUNTER_BLOCKS - 1])
        atomic_fetch_add_explicit(c, v, memory_order_relaxed);
    else   /* only this thread writes it: no locked instruction */
        atomic_store_explicit(
            c, atomic_load_explicit(c, memory_order_relaxed) + v,
            memory_order_relaxed);
}

void tp_count_am(unsigned id, size_t bytes)
{
    counter_block_t *b = block();
    bump(b, &b->am_sent[id], 1);
    bump(b, &b->am_bytes[id], bytes);
}

void tp_count_get(size_t bytes)
{
    counter_block_t *b = block();
    bump(b, &b->gets, 1);
    bump(b, &b->get_bytes, bytes);
}

void tp_count_put(size_t bytes)
{
    counter_block_t *b = block();
    bump(b, &b->puts, 1);
    bump(b, &b->put_bytes, bytes);
}

void tp_count_atomic(void)
{
    counter_block_t *b = block();
    bump(b, &b->atomics, 1);
}

static uint64_t peek(_Atomic uint64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

static void sum(dsm_tp_counters_t *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned k = 0; k < COUNTER_BLOCKS; k++) {
        counter_block_t *b = &blocks[k];
        for (unsigned i = 0; i < DSM_TP_AM_MAX_ID; i++) {
            out->am_sent[i] += peek(&b->am_sent[i]);
            out->am_bytes[i] += peek(&b->am_bytes[i]);
        }
        out->gets += peek(&b->gets);
        out->get_bytes += peek(&b->get_bytes);
        out->puts += peek(&b->puts);
        out->put_bytes += peek(&b->put_bytes);
        out->atomics += peek(&b->atomics);
    }
}

void tp_counters_reset(void) { sum(&baseline); }

void dsm_tp_counters_get(dsm_tp_counters_t *out)
{
    dsm_tp_counters_t snap;
    sum(&snap);
    for (unsigned i = 0; i < DSM_TP_AM_MAX_ID; i++) {
        snap.am_sent[i] -= baseline.am_sent[i];
        snap.am_bytes[i] -= baseline.am_bytes[i];
    }
    snap.gets -= baseline.gets;
    snap.get_bytes -= baseline.get_bytes;
    snap.puts -= baseline.puts;
    snap.put_bytes -= baseline.put_bytes;
    snap.atomics -= baseline.atomics;
    *out = snap;
}
