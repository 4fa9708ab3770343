/*
 * coh_atomic.c - cluster-wide atomic operations on sharable words, the
 * target of `#pragma omp atomic` (through the compiler shim).
 *
 * Layer: coherence.  Any application thread; never the fault handler.
 * The operation is done on the home's copy of the word with the transport's
 * one-sided atomics, also when this node is the home: the transport's
 * atomics are atomic with respect to each other but not necessarily to the
 * CPU's, so every node must take the same path.  Operations UCX has no
 * instruction for are compare-and-swap loops.  Afterwards this node's cached copy (and its twin,
 * so the word is not diffed as a plain write) takes the new value, and the
 * page gets a write notice so other nodes see it after their next acquire.
 */
#include <string.h>

#include "base_log.h"
#include "coh_protocol.h"
#include "coh_state.h"
#include "coherence.h"
#include "sys_stack.h"
#include "transport.h"

typedef struct word_ref {
    int home;
    uint64_t offset;        /* in the REGION segment */
    unsigned size;          /* 4 or 8 */
} word_ref_t;

/* One transport atomic on the word: fetch-and-add, swap, or
 * compare-and-swap (value = expected, desired = new); returns the old
 * value. */
enum amo_kind { AMO_FADD, AMO_SWAP, AMO_CSWAP };

static uint64_t amo(const word_ref_t *w, enum amo_kind kind, uint64_t value,
                    uint64_t desired)
{
    dsm_status_t st;
    uint64_t old = 0;
    if (w->size == 8) {
        st = kind == AMO_FADD ? dsm_tp_atomic_fadd64(w->home, DSM_TP_SEG_REGION,
                                                     w->offset, value, &old)
           : kind == AMO_SWAP ? dsm_tp_atomic_swap64(w->home, DSM_TP_SEG_REGION,
                                                     w->offset, value, &old)
           : dsm_tp_atomic_cswap64(w->home, DSM_TP_SEG_REGION, w->offset,
                                   value, desired, &old);
    } else {
        uint32_t o = 0;
        st = kind == AMO_FADD ? dsm_tp_atomic_fadd32(w->home, DSM_TP_SEG_REGION,
                                                     w->offset, (uint32_t)value, &o)
           : kind == AMO_SWAP ? dsm_tp_atomic_swap32(w->home, DSM_TP_SEG_REGION,
                                                     w->offset, (uint32_t)value, &o)
           : dsm_tp_atomic_cswap32(w->home, DSM_TP_SEG_REGION, w->offset,
                                   (uint32_t)value, (uint32_t)desired, &o);
        old = o;
    }
    if (st != DSM_OK)
        dsm_fatal("atomic operation at node %d: %s", w->home,
                  dsm_status_string(st));
    return old;
}

static uint64_t word_load(const word_ref_t *w)
{
    return amo(w, AMO_FADD, 0, 0);
}

/* Remote fetch-and-add or swap of a whole word; returns the old value. */
static uint64_t remote_rmw(const word_ref_t *w, dsm_coh_atomic_op_t op,
                           uint64_t operand)
{
    if (op == DSM_ATOMIC_ADD || op == DSM_ATOMIC_SUB)
        return amo(w, AMO_FADD,
                   op == DSM_ATOMIC_SUB ? (uint64_t)0 - operand : operand, 0);
    return amo(w, AMO_SWAP, operand, 0);
}

/* Compare-and-swap; returns the value found (success when == expected). */
static uint64_t word_cas(const word_ref_t *w, uint64_t expected,
                         uint64_t desired)
{
    return amo(w, AMO_CSWAP, expected, desired);
}

static uint64_t sign_extend(uint64_t v, unsigned size)
{
    unsigned bits = size * 8;
    return bits == 64 ? v : (uint64_t)((int64_t)(v << (64 - bits)) >> (64 - bits));
}

static double as_double(uint64_t v, unsigned size)
{
    if (size == 8) {
        double d;
        memcpy(&d, &v, 8);
        return d;
    }
    float f;
    uint32_t u = (uint32_t)v;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t from_double(double d, unsigned size)
{
    if (size == 8) {
        uint64_t v;
        memcpy(&v, &d, 8);
        return v;
    }
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* The new value of a size-byte operand; *write = 0 when nothing changes. */
static uint64_t apply(dsm_coh_atomic_op_t op, unsigned size, uint64_t cur,
                      uint64_t operand, uint64_t expected, int *write)
{
    uint64_t mask = size == 8 ? ~0ull : (1ull << (size * 8)) - 1;
    int64_t sc = (int64_t)sign_extend(cur, size);
    int64_t so = (int64_t)sign_extend(operand & mask, size);
    *write = 1;
    switch (op) {
    case DSM_ATOMIC_LOAD: *write = 0; return cur;
    case DSM_ATOMIC_STORE:
    case DSM_ATOMIC_XCHG: return operand & mask;
    case DSM_ATOMIC_CAS:
        *write = cur == (expected & mask);
        return operand & mask;
    case DSM_ATOMIC_ADD:  return (cur + operand) & mask;
    case DSM_ATOMIC_SUB:  return (cur - operand) & mask;
    case DSM_ATOMIC_AND:  return cur & operand & mask;
    case DSM_ATOMIC_OR:   return (cur | operand) & mask;
    case DSM_ATOMIC_XOR:  return (cur ^ operand) & mask;
    case DSM_ATOMIC_NAND: return ~(cur & operand) & mask;
    case DSM_ATOMIC_MAX:  return (sc >= so ? cur : operand) & mask;
    case DSM_ATOMIC_MIN:  return (sc <= so ? cur : operand) & mask;
    case DSM_ATOMIC_UMAX: return cur >= (operand & mask) ? cur : operand & mask;
    case DSM_ATOMIC_UMIN: return cur <= (operand & mask) ? cur : operand & mask;
    case DSM_ATOMIC_FADD:
        return from_double(as_double(cur, size) + as_double(operand, size), size);
    case DSM_ATOMIC_FSUB:
        return from_double(as_double(cur, size) - as_double(operand, size), size);
    case DSM_ATOMIC_FMAX: {
        double a = as_double(cur, size), b = as_double(operand, size);
        return a >= b ? cur : operand & mask;
    }
    case DSM_ATOMIC_FMIN: {
        double a = as_double(cur, size), b = as_double(operand, size);
        return a <= b ? cur : operand & mask;
    }
    }
    *write = 0;
    return cur;
}

/* Bring this node's copy of the page in line with the new word and give
 * the page a write notice; page lock held since before the operation, so
 * two threads' updates of the copy land in the order of their operations
 * at the home. */
static void note_update(size_t index, uintptr_t addr, const void *value,
                        unsigned size)
{
    coh_page_t *pg = &coh.pages[index];
    size_t in_page = addr & (DSM_PAGE_SIZE - 1);
    uint8_t flags = atomic_load(&pg->flags);
    if (!(flags & PF_HOME) && atomic_load(&pg->state) != PS_INVALID) {
        memcpy(coh_page_rt(index) + in_page, value, size);
        if (flags & PF_TWIN)
            memcpy(coh_page_twin(index) + in_page, value, size);
    }
    if (!(flags & PF_HOME) || (flags & PF_SHARED))
        coh_dirty_add(index);
}

static dsm_status_t atomic_locked(long idx, uintptr_t a, unsigned size,
                                  dsm_coh_atomic_op_t op, uint64_t operand,
                                  uint64_t expected, uint64_t *old);

static dsm_status_t atomic_body(void *addr, unsigned size,
                                dsm_coh_atomic_op_t op, uint64_t operand,
                                uint64_t expected, uint64_t *old)
{
    uintptr_t a = (uintptr_t)addr;
    if (!coh.initialized)
        return DSM_ERR_STATE;
    if ((size != 1 && size != 2 && size != 4 && size != 8) || a % size ||
        op > DSM_ATOMIC_FMIN ||
        ((op >= DSM_ATOMIC_FADD) && size < 4))
        return DSM_ERR_INVALID;
    long idx = coh_page_index(a);
    if (idx < 0)
        return DSM_ERR_INVALID;
    coh_page_lock((size_t)idx);
    dsm_status_t st = atomic_locked(idx, a, size, op, operand, expected, old);
    coh_page_unlock((size_t)idx);
    return st;
}

static dsm_status_t atomic_locked(long idx, uintptr_t a, unsigned size,
                                  dsm_coh_atomic_op_t op, uint64_t operand,
                                  uint64_t expected, uint64_t *old)
{
    /* sub-word operations work on the aligned 4-byte word around them */
    unsigned wsize = size == 8 ? 8 : 4;
    uintptr_t wa = a & ~(uintptr_t)(wsize - 1);
    unsigned shift = (unsigned)(a - wa) * 8;
    uint64_t smask = size == 8 ? ~0ull : ((1ull << (size * 8)) - 1);
    coh_page_t *pg = &coh.pages[idx];
    word_ref_t w = {
        .home = pg->home,
        .offset = ((uint64_t)idx << DSM_PAGE_SHIFT) + (wa & (DSM_PAGE_SIZE - 1)),
        .size = wsize,
    };

    uint64_t cur_word, cur, next_word = 0;
    int write;
    if (size == wsize &&
        (op == DSM_ATOMIC_ADD || op == DSM_ATOMIC_SUB ||
         op == DSM_ATOMIC_XCHG || op == DSM_ATOMIC_STORE)) {
        /* one remote atomic instead of a read and a compare-and-swap */
        cur = remote_rmw(&w, op, operand);
        next_word = apply(op, size, cur, operand, expected, &write);
        note_update((size_t)idx, wa, &next_word, wsize);
        *old = cur;
        return DSM_OK;
    }
    cur_word = word_load(&w);
    for (;;) {
        cur = (cur_word >> shift) & smask;
        uint64_t next = apply(op, size, cur, operand, expected, &write);
        if (!write)
            break;
        next_word = (cur_word & ~(smask << shift)) | (next << shift);
        uint64_t found = word_cas(&w, cur_word, next_word);
        if (found == cur_word)
            break;
        cur_word = found;
    }
    if (write) {
        /* only the operand's own bytes: the rest of the word may hold this
         * node's unpublished plain writes */
        uint64_t v = (next_word >> shift) & smask;
        note_update((size_t)idx, a, &v, size);
    }
    *old = cur;
    return DSM_OK;
}

/* On the runtime stack: the page lock of the word is held while the local
 * copy is updated, and the word may sit on the caller's own stack page. */
typedef struct atomic_call {
    void *addr;
    unsigned size;
    dsm_coh_atomic_op_t op;
    uint64_t operand, expected, old;
    dsm_status_t status;
} atomic_call_t;

static void atomic_call(void *arg)
{
    atomic_call_t *c = arg;
    c->status = atomic_body(c->addr, c->size, c->op, c->operand, c->expected,
                            &c->old);
}

dsm_status_t dsm_coh_atomic(void *addr, unsigned size, dsm_coh_atomic_op_t op,
                            uint64_t operand, uint64_t expected,
                            uint64_t *old)
{
    atomic_call_t c = {addr, size, op, operand, expected, 0, DSM_OK};
    dsm_sys_on_rtstack(atomic_call, &c);
    if (c.status == DSM_OK)
        *old = c.old;
    return c.status;
}
