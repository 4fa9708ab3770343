/*
 * coh_atomic.c - cluster-wide atomic operations on sharable words, the
 * target of `#pragma omp atomic` (through the compiler shim).
 *
 * Layer: coherence.  dsm_coh_atomic, dsm_coh_atomic_seed: any application
 * thread, never the fault handler.  The ATOMIC_REQ handler: any progressing
 * thread.
 * Every operation on a word is done with the CPU's atomics on the home's
 * copy, by one of two paths that never meet on one job's words: in a
 * one-host job whose nodes all map each other's memory
 * (dsm_tp_cpu_atomics), by the calling node through its mapping; otherwise
 * by the home itself, for its own threads directly and for other nodes in
 * the handler of their ATOMIC_REQ.  (UCX's one-sided atomics are not used
 * here: over TCP they cost a round trip each and a float add takes a load
 * and a compare-and-swap, which a busy home's own faster updates make fail
 * again and again; and a network adapter's atomics would not be atomic
 * with respect to the home's CPU.)  Afterwards this node's cached copy (and
 * its twin, so the word is not diffed as a plain write) takes the new
 * value, and the page gets a write notice so other nodes see it after
 * their next acquire.
 */
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "coh_check.h"
#include "coh_protocol.h"
#include "coh_sharing.h"
#include "coh_state.h"
#include "coh_wire.h"
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
    /* a direct page shows the home's memory, which the operation changed */
    if (!(flags & (PF_HOME | PF_DIRECT)) &&
        atomic_load(&pg->state) != PS_INVALID) {
        memcpy(coh_page_rt(index) + in_page, value, size);
        /* no longer node 0's snapshot: a pushed diff would leave bytes of
         * this value that the final one shares with the snapshot */
        coh_push_installed(index, 1);
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
    coh_sharing_atomic((size_t)idx, a, op == DSM_ATOMIC_LOAD);
    coh_page_lock((size_t)idx);
    dsm_status_t st = atomic_locked(idx, a, size, op, operand, expected, old);
    coh_check_page((size_t)idx, "an atomic");
    coh_page_unlock((size_t)idx);
    return st;
}

/* The word after op on its size-byte operand at bit shift; *write = 0
 * when nothing changes. */
static uint64_t word_next(dsm_coh_atomic_op_t op, unsigned size,
                          unsigned shift, uint64_t word, uint64_t operand,
                          uint64_t expected, int *write)
{
    uint64_t smask = size == 8 ? ~0ull : ((1ull << (size * 8)) - 1);
    uint64_t next = apply(op, size, (word >> shift) & smask, operand,
                          expected, write);
    return (word & ~(smask << shift)) | (next << shift);
}

/* op on this node's own copy of the word at offset (this node is the
 * page's home), with the CPU's atomics; returns the word before. */
static uint64_t home_word_op(uint64_t offset, unsigned wsize, unsigned shift,
                             unsigned size, dsm_coh_atomic_op_t op,
                             uint64_t operand, uint64_t expected)
{
    char *p = coh.region.rt + offset;
    int write;
    if (wsize == 8) {
        uint64_t *word = (uint64_t *)(void *)p;
        uint64_t cur = __atomic_load_n(word, __ATOMIC_SEQ_CST);
        for (;;) {
            uint64_t next = word_next(op, size, shift, cur, operand, expected,
                                      &write);
            if (!write || __atomic_compare_exchange_n(word, &cur, next, 0,
                                                      __ATOMIC_SEQ_CST,
                                                      __ATOMIC_SEQ_CST))
                return cur;
        }
    }
    uint32_t *word = (uint32_t *)(void *)p;
    uint32_t cur = __atomic_load_n(word, __ATOMIC_SEQ_CST);
    for (;;) {
        uint32_t next = (uint32_t)word_next(op, size, shift, cur, operand,
                                            expected, &write);
        if (!write || __atomic_compare_exchange_n(word, &cur, next, 0,
                                                  __ATOMIC_SEQ_CST,
                                                  __ATOMIC_SEQ_CST))
            return cur;
    }
}

/* op done by the home, whose reply carries the word before it. */
static uint64_t ask_home(int home, uint64_t offset, unsigned size,
                         dsm_coh_atomic_op_t op, uint64_t operand,
                         uint64_t expected)
{
    int s = coh_slot_self();
    coh.slots[s].done = 0;
    coh_msg_atomic_t m = {offset, operand, expected, (uint32_t)s,
                          (uint16_t)op, (uint16_t)size};
    dsm_status_t st = dsm_tp_am_send(home, COH_AM_ATOMIC_REQ, &m, sizeof m);
    if (st != DSM_OK)
        dsm_fatal("atomic request to node %d: %s", home,
                  dsm_status_string(st));
    dsm_tp_wait_flag_on(&coh.slots[s].done, "the result of an atomic at its "
                        "home", home, DSM_ACTIVITY_ABOUT_ATOMIC, offset, 0);
    return coh.slots[s].value;
}

static const coh_wire_limits_t *atomic_limits(coh_wire_limits_t *lim)
{
    *lim = (coh_wire_limits_t){(uint32_t)coh.size, coh.npages, COH_MAX_SLOTS};
    return lim;
}

static void on_atomic_req(int src, const void *payload, size_t len,
                          void *arg)
{
    coh_wire_limits_t lim;
    coh_msg_atomic_t m;
    if (coh_wire_atomic(payload, len, atomic_limits(&lim), &m) != DSM_OK)
        dsm_fatal("malformed atomic request from node %d", src);
    size_t index = (size_t)(m.offset >> DSM_PAGE_SHIFT);
    if (!(atomic_load(&coh.pages[index].flags) & PF_HOME))
        dsm_fatal("node %d asked node %d for an atomic on page %zu, which "
                  "node %d does not home", src, coh.rank, index, coh.rank);
    unsigned wsize = m.size == 8 ? 8 : 4;
    uint64_t woff = m.offset & ~(uint64_t)(wsize - 1);
    coh_msg_atomic_rep_t r = {
        .word = home_word_op(woff, wsize, (unsigned)(m.offset - woff) * 8,
                             m.size, (dsm_coh_atomic_op_t)m.op, m.operand,
                             m.expected),
        .slot = m.slot,
    };
    dsm_status_t st = dsm_tp_am_send(src, COH_AM_ATOMIC_REP, &r, sizeof r);
    if (st != DSM_OK)
        dsm_fatal("atomic reply to node %d: %s", src, dsm_status_string(st));
}

static void on_atomic_rep(int src, const void *payload, size_t len,
                          void *arg)
{
    coh_wire_limits_t lim;
    coh_msg_atomic_rep_t r;
    if (coh_wire_atomic_rep(payload, len, atomic_limits(&lim), &r) != DSM_OK)
        dsm_fatal("malformed atomic reply from node %d", src);
    coh_slot_reply(r.slot, r.word);
}

dsm_status_t coh_atomic_register_handlers(void)
{
    dsm_status_t st;
    if ((st = coh_am_register(COH_AM_ATOMIC_REQ, on_atomic_req)) != DSM_OK ||
        (st = coh_am_register(COH_AM_ATOMIC_REP, on_atomic_rep)) != DSM_OK)
        return st;
    return DSM_OK;
}

/* The value this thread's last atomic found or left in its word: the
 * seed of the next compare-and-swap loop there when this node's copy is
 * invalid, as it is for a whole region after another node updated the
 * word in the one before. */
static __thread struct {
    uintptr_t addr;
    unsigned size;
    uint64_t value;
} last_seen;

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

    uint64_t cur_word, next_word;
    int write;
    if (!dsm_tp_cpu_atomics(DSM_TP_SEG_REGION)) {
        cur_word = w.home == coh.rank
                       ? home_word_op(w.offset, wsize, shift, size, op,
                                      operand, expected)
                       : ask_home(w.home, w.offset + (a - wa), size, op,
                                  operand, expected);
        next_word = word_next(op, size, shift, cur_word, operand, expected,
                              &write);
    } else if (size == wsize &&
               (op == DSM_ATOMIC_ADD || op == DSM_ATOMIC_SUB ||
                op == DSM_ATOMIC_XCHG || op == DSM_ATOMIC_STORE)) {
        /* one atomic instead of a read and a compare-and-swap */
        cur_word = remote_rmw(&w, op, operand);
        next_word = word_next(op, size, 0, cur_word, operand, expected,
                              &write);
    } else {
        cur_word = word_load(&w);
        for (;;) {
            next_word = word_next(op, size, shift, cur_word, operand,
                                  expected, &write);
            if (!write)
                break;
            uint64_t found = word_cas(&w, cur_word, next_word);
            if (found == cur_word)
                break;
            cur_word = found;
        }
    }
    *old = (cur_word >> shift) & smask;
    last_seen.addr = a;
    last_seen.size = size;
    last_seen.value = *old;
    if (write) {
        /* only the operand's own bytes: the rest of the word may hold this
         * node's unpublished plain writes */
        uint64_t v = (next_word >> shift) & smask;
        note_update((size_t)idx, a, &v, size);
        last_seen.value = v;
    }
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

/* A copy of a page this node does not home goes stale only through other
 * nodes' writes; a torn read of a word being updated is as good a guess as
 * any.  Without a valid copy, what this thread's last atomic on the word
 * saw.  No page lock: nothing here changes. */
static int seed_from_copy(uintptr_t a, unsigned size, uint64_t *value)
{
    long idx = coh_page_index(a);
    if (idx < 0 || dsm_tp_cpu_atomics(DSM_TP_SEG_REGION))
        return 0;   /* a load through the mapping is as cheap */
    coh_page_t *pg = &coh.pages[idx];
    if (atomic_load(&pg->flags) & PF_HOME)
        return 0;   /* the exact value costs no more */
    if (atomic_load(&pg->state) == PS_INVALID) {
        if (last_seen.addr != a || last_seen.size != size)
            return 0;
        *value = last_seen.value;
        return 1;
    }
    const void *p = atomic_load(&pg->flags) & PF_DIRECT
                        ? (const void *)a   /* the home's memory */
                        : coh_page_rt((size_t)idx) + (a & (DSM_PAGE_SIZE - 1));
    switch (size) {
    case 1:
        *value = __atomic_load_n((const uint8_t *)p, __ATOMIC_RELAXED);
        break;
    case 2:
        *value = __atomic_load_n((const uint16_t *)p, __ATOMIC_RELAXED);
        break;
    case 4:
        *value = __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
        break;
    default:
        *value = __atomic_load_n((const uint64_t *)p, __ATOMIC_RELAXED);
        break;
    }
    return 1;
}

dsm_status_t dsm_coh_atomic_seed(void *addr, unsigned size, uint64_t *value)
{
    uintptr_t a = (uintptr_t)addr;
    if (coh.initialized && (size == 1 || size == 2 || size == 4 ||
                            size == 8) && a % size == 0 &&
        seed_from_copy(a, size, value))
        return DSM_OK;
    return dsm_coh_atomic(addr, size, DSM_ATOMIC_LOAD, 0, 0, value);
}

dsm_status_t dsm_coh_atomic(void *addr, unsigned size, dsm_coh_atomic_op_t op,
                            uint64_t operand, uint64_t expected,
                            uint64_t *old)
{
    /* Without a progress thread only threads inside the runtime serve
     * messages, and a thread spinning on an atomic read may be the only
     * one the node has: served here, a releaser on another node waiting
     * for this node's acknowledgement (an atomic write's release) ends. */
    if (!dsm_config()->progress_thread)
        dsm_tp_progress();
    atomic_call_t c = {addr, size, op, operand, expected, 0, DSM_OK};
    uint64_t t0 = coh_sharing_sync_begin();
    dsm_sys_on_rtstack(atomic_call, &c);
    coh_sharing_atomic_end(t0);
    if (c.status == DSM_OK)
        *old = c.old;
    return c.status;
}
