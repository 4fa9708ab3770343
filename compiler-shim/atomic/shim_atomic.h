/*
 * shim_atomic.h - internal interface of the runtime side of atomics: what
 * the word entries (shim_atomic.c), the libatomic twins (shim_libatomic.c)
 * and the locked path (shim_atomic_locked.c) share.
 *
 * Layer: compiler-shim (internal header).  Application threads only.
 *
 * Every entry point decides per call: an address outside the sharable
 * region, or any address in a one-node job, takes the native path (the
 * CPU's atomics, or libatomic's for what clang did not inline), exactly
 * what the program would have done without dsmomp.  A sharable, naturally
 * aligned 1, 2, 4 or 8-byte object goes to dsm_coh_atomic, which operates
 * on the home's copy.  Any other sharable object (16 bytes, odd sizes,
 * misaligned) is updated piece by piece through dsm_coh_atomic under a
 * cluster lock named by its address.  A given object always takes the same
 * path, so the paths never race with each other on one object.
 */
#ifndef SHIM_ATOMIC_H
#define SHIM_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atomic_abi.h"
#include "coherence.h"

#define SHIM_ATOMIC_EXPORT __attribute__((visibility("default")))

/* True when the CPU's own atomic is exact for the object: it is not
 * sharable, or the job has one node (every access to it is then made by
 * this process, and all of them take this path). */
static inline bool shim_atomic_native(const void *addr)
{
    return !dsm_is_sharable(addr) || dsm_num_nodes() < 2;
}

/* True when dsm_coh_atomic can take the object: size 1, 2, 4 or 8 and
 * naturally aligned. */
static inline bool shim_atomic_is_word(const void *addr, size_t size)
{
    return (size == 1 || size == 2 || size == 4 || size == 8) &&
           ((uintptr_t)addr & (size - 1)) == 0;
}

/* The object's bytes as a zero-extended integer, and back (size <= 8). */
uint64_t shim_atomic_bytes_get(const void *bytes, size_t size);
void shim_atomic_bytes_put(void *bytes, size_t size, uint64_t value);

/* The value a dsm_rmw_op leaves in a size-byte object holding old (size 1,
 * 2, 4 or 8; FADD and FSUB need 4 or 8). */
uint64_t shim_atomic_apply(int op, size_t size, uint64_t old,
                           uint64_t operand);
/* The same on bytes, for size 1, 2, 4, 8 and 16 (16: integer operations
 * other than XCHG, MAX and MIN, as libatomic offers them). */
void shim_atomic_apply_bytes(int op, size_t size, const void *old,
                             const void *operand, void *result);

/* dsm_coh_atomic on a word object; returns the old value, ends the job if
 * the operation fails (a peer died, the address is not sharable). */
uint64_t shim_atomic_coh(void *addr, size_t size, dsm_coh_atomic_op_t op,
                         uint64_t operand, uint64_t expected);
/* The dsm_coh_atomic operation for a dsm_rmw_op. */
dsm_coh_atomic_op_t shim_atomic_coh_op(int op);

/* What the operation implies for the rest of memory across nodes
 * (shim_atomic_order.c): releases before stores and before
 * read-modify-writes of release order or stronger, acquires after loads
 * and read-modify-writes of acquire order or stronger, and after relaxed
 * loads that return a value this thread did not see there last. */
void shim_atomic_before_store(void);
void shim_atomic_before_rmw(int order);
void shim_atomic_after_rmw(int order);
void shim_atomic_after_load(const void *addr, uint64_t value, int order);
/* The same for an object of size bytes (any size) read into bytes. */
void shim_atomic_after_load_bytes(const void *addr, const void *bytes,
                                  size_t size, int order);

/* The locked path, for sharable objects that are not words: exclusive
 * under a cluster lock named by the object's address, the bytes read from
 * and written to the home's copy (shim_atomic_locked.c).  _fetch takes
 * sizes up to 16. */
void shim_atomic_locked_read(void *obj, size_t size, void *out);
void shim_atomic_locked_write(void *obj, size_t size, const void *in);
void shim_atomic_locked_exchange(void *obj, size_t size, const void *in,
                                 void *out);
bool shim_atomic_locked_compare_exchange(void *obj, size_t size,
                                         void *expected, const void *desired);
void shim_atomic_locked_fetch(void *obj, size_t size, int op,
                              const void *operand, void *old);

#endif
