/*
 * shim_atomic_locked.c - atomics on sharable objects that dsm_coh_atomic
 * cannot take in one operation: 16 bytes (long double, double complex,
 * __int128), odd sizes, misaligned words (packed structs).
 *
 * Layer: compiler-shim.  Entry points: shim_atomic_locked_read, _write,
 * _exchange, _compare_exchange, _fetch.  Application threads; the lock
 * operations run on the thread's runtime stack (fj_lock_acquire), because
 * the caller's stack may be sharable.
 *
 * A cluster lock named by the object's address makes the operation
 * exclusive; the bytes themselves travel through dsm_coh_atomic on the
 * object's naturally aligned pieces (8, 4, 2 or 1 bytes), so they are read
 * from and written to the home's copy.  Plain writes of this node's copy
 * would not do: pages are diffed in 8-byte words, and a misaligned field
 * shares its words with neighbours that other nodes update under other
 * locks - each diff would put back its stale view of the neighbour.
 */
#include "base_log.h"
#include "forkjoin.h"
#include "shim_atomic.h"

static dsm_lock_t lock_object(const void *obj)
{
    dsm_lock_t lock = dsm_coh_lock_named((uint64_t)(uintptr_t)obj);
    dsm_status_t st = fj_lock_acquire(&lock);
    if (st != DSM_OK)
        dsm_fatal("locking the atomic object at %p: %s", obj,
                  dsm_status_string(st));
    return lock;
}

static void unlock_object(const void *obj, dsm_lock_t lock)
{
    dsm_status_t st = fj_lock_release(&lock);
    if (st != DSM_OK)
        dsm_fatal("unlocking the atomic object at %p: %s", obj,
                  dsm_status_string(st));
}

/* The largest naturally aligned piece (8, 4, 2 or 1 bytes) at addr that
 * ends by end. */
static size_t piece_at(uintptr_t addr, uintptr_t end)
{
    for (size_t n = 8; n > 1; n /= 2)
        if (addr % n == 0 && addr + n <= end)
            return n;
    return 1;
}

/* Piecewise copies between the home's copy and a buffer; exclusive only
 * under the object's lock. */
static void read_pieces(void *obj, size_t size, void *out)
{
    char *o = obj;
    unsigned char *b = out;
    for (size_t off = 0; off < size;) {
        size_t n = piece_at((uintptr_t)(o + off), (uintptr_t)(o + size));
        shim_atomic_bytes_put(b + off, n, shim_atomic_coh(o + off, n,
                                                          DSM_ATOMIC_LOAD, 0, 0));
        off += n;
    }
}

static void write_pieces(void *obj, size_t size, const void *in)
{
    char *o = obj;
    const unsigned char *b = in;
    for (size_t off = 0; off < size;) {
        size_t n = piece_at((uintptr_t)(o + off), (uintptr_t)(o + size));
        shim_atomic_coh(o + off, n, DSM_ATOMIC_STORE,
                        shim_atomic_bytes_get(b + off, n), 0);
        off += n;
    }
}

void shim_atomic_locked_read(void *obj, size_t size, void *out)
{
    dsm_lock_t lock = lock_object(obj);
    read_pieces(obj, size, out);
    unlock_object(obj, lock);
}

void shim_atomic_locked_write(void *obj, size_t size, const void *in)
{
    dsm_lock_t lock = lock_object(obj);
    write_pieces(obj, size, in);
    unlock_object(obj, lock);
}

/* Piece by piece, each piece of in read before out's is written: in and
 * out may be the same buffer. */
void shim_atomic_locked_exchange(void *obj, size_t size, const void *in,
                                 void *out)
{
    char *o = obj;
    const unsigned char *src = in;
    unsigned char *dst = out;
    dsm_lock_t lock = lock_object(obj);
    for (size_t off = 0; off < size;) {
        size_t n = piece_at((uintptr_t)(o + off), (uintptr_t)(o + size));
        uint64_t old = shim_atomic_coh(o + off, n, DSM_ATOMIC_XCHG,
                                       shim_atomic_bytes_get(src + off, n), 0);
        shim_atomic_bytes_put(dst + off, n, old);
        off += n;
    }
    unlock_object(obj, lock);
}

/* libatomic's contract: on failure *expected receives the current value. */
bool shim_atomic_locked_compare_exchange(void *obj, size_t size,
                                         void *expected, const void *desired)
{
    char *o = obj;
    const unsigned char *want = expected;
    bool equal = true;
    dsm_lock_t lock = lock_object(obj);
    for (size_t off = 0; off < size && equal;) {
        size_t n = piece_at((uintptr_t)(o + off), (uintptr_t)(o + size));
        equal = shim_atomic_coh(o + off, n, DSM_ATOMIC_LOAD, 0, 0) ==
                shim_atomic_bytes_get(want + off, n);
        off += n;
    }
    /* Nobody else changes the object while the lock is held. */
    if (equal)
        write_pieces(obj, size, desired);
    else
        read_pieces(obj, size, expected);
    unlock_object(obj, lock);
    return equal;
}

void shim_atomic_locked_fetch(void *obj, size_t size, int op,
                              const void *operand, void *old)
{
    unsigned char next[16];
    DSM_ASSERT(size <= sizeof next);
    dsm_lock_t lock = lock_object(obj);
    read_pieces(obj, size, old);
    shim_atomic_apply_bytes(op, size, old, operand, next);
    write_pieces(obj, size, next);
    unlock_object(obj, lock);
}
