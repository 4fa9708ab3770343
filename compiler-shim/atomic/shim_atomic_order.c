/*
 * shim_atomic_order.c - what an atomic on sharable memory implies for the
 * rest of memory across nodes.  dsm_coh_atomic makes the operation itself
 * exact on the home's copy, but the program's other writes reach other
 * nodes only through releases and acquires (design.md, "Flush"), so:
 *   - a store, and a read-modify-write with release, acq_rel or seq_cst
 *     order, releases first: whoever sees the new value can then acquire
 *     the writes made before it (a flag set after the data);
 *   - a load or read-modify-write with consume, acquire, acq_rel or
 *     seq_cst order acquires after (C11's acquire);
 *   - a relaxed load acquires after when it returns a value this thread
 *     did not see at that address last time: OpenMP programs spin on
 *     `#pragma omp atomic read` of a flag (relaxed since OpenMP 5.0) and
 *     then read the data the flag announces; the acquire costs nothing
 *     while the value stays the same, and seeing it change is exactly
 *     when the data it guards may have changed.
 * Relaxed read-modify-writes (`#pragma omp atomic update`, counters)
 * imply nothing, as on a shared-memory machine.
 *
 * Layer: compiler-shim.  Application threads, on sharable words in jobs of
 * several nodes only (shim_atomic_native decides before).
 */
#include "base_log.h"
#include "coherence.h"
#include "shim_atomic.h"

/* The last value this thread's relaxed loads returned, per address
 * (direct-mapped: a collision only costs an acquire). */
#define SEEN_SLOTS 16
static __thread struct {
    uintptr_t addr;
    uint64_t value;
} seen[SEEN_SLOTS];

static void sync_or_die(unsigned what)
{
    dsm_status_t st = dsm_coh_sync(what);
    if (st != DSM_OK && st != DSM_ERR_STATE)
        dsm_fatal("the flush of an atomic operation failed: %s",
                  dsm_status_string(st));
}

static int releases(int order)
{
    return order == __ATOMIC_RELEASE || order == __ATOMIC_ACQ_REL ||
           order == __ATOMIC_SEQ_CST;
}

static int acquires(int order)
{
    return order == __ATOMIC_CONSUME || order == __ATOMIC_ACQUIRE ||
           order == __ATOMIC_ACQ_REL || order == __ATOMIC_SEQ_CST;
}

void shim_atomic_before_store(void) { sync_or_die(DSM_COH_RELEASE); }

void shim_atomic_before_rmw(int order)
{
    if (releases(order))
        sync_or_die(DSM_COH_RELEASE);
}

void shim_atomic_after_rmw(int order)
{
    if (acquires(order))
        sync_or_die(DSM_COH_ACQUIRE);
}

void shim_atomic_after_load(const void *addr, uint64_t value, int order)
{
    if (acquires(order)) {
        sync_or_die(DSM_COH_ACQUIRE);
        return;
    }
    uintptr_t a = (uintptr_t)addr;
    unsigned k = (unsigned)(a >> 3) % SEEN_SLOTS;
    if (seen[k].addr == a && seen[k].value == value)
        return;
    seen[k].addr = a;
    seen[k].value = value;
    sync_or_die(DSM_COH_ACQUIRE);
}

void shim_atomic_after_load_bytes(const void *addr, const void *bytes,
                                  size_t size, int order)
{
    if (size <= 8)
        shim_atomic_after_load(addr, shim_atomic_bytes_get(bytes, size),
                               order);
    else   /* too wide to remember: as if always new */
        sync_or_die(DSM_COH_ACQUIRE);
}
