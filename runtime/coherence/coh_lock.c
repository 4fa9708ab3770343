/*
 * coh_lock.c - cluster-wide locks with lazy-release-consistency hand-over.
 *
 * Layer: coherence.  A lock is managed by the node that initialised it: the
 * manager keeps the holder and a FIFO queue of waiters (fair: no node
 * starves) and the vector time of the last release.  The grant carries that
 * vector time; the acquirer reads the write-notice records it has not seen
 * from their creators' published logs (one-sided gets) and invalidates
 * exactly those pages.  Manager handlers run in any progressing thread and
 * only touch the lock table under its per-lock guard.  API: any application
 * thread, never the fault handler.
 */
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "coh_protocol.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "coh_wire.h"
#include "coherence.h"
#include "sys_activity.h"
#include "sys_stack.h"
#include "transport.h"

#define COH_MAX_LOCKS (1u << 18)
#define COH_NAMED_LOCKS 4096u          /* the top of the index space */
#define COH_NAMED_BASE (COH_MAX_LOCKS - COH_NAMED_LOCKS)
#define NO_WAITER (-1)

typedef struct lock_state {
    dsm_mutex_t guard;
    int32_t holder;          /* waiter id (node * COH_MAX_SLOTS + slot), -1 */
    int32_t head, tail;      /* FIFO of waiter ids */
} lock_state_t;

static lock_state_t *locks;       /* locks this node manages */
static uint32_t *lock_vc;         /* [COH_MAX_LOCKS][size] */
static int32_t *waiter_next;      /* [COH_MAX_NODES * COH_MAX_SLOTS] */
static _Atomic uint32_t next_index = 1;

typedef struct lock_msg {
    coh_msg_lock_t hdr;
    uint32_t vc[COH_MAX_NODES];
} lock_msg_t;

dsm_status_t coh_lock_setup(void)
{
    locks = coh_table_alloc(sizeof(lock_state_t) * COH_MAX_LOCKS);
    lock_vc = coh_table_alloc(sizeof(uint32_t) * COH_MAX_LOCKS *
                              (size_t)coh.size);
    waiter_next = coh_table_alloc(sizeof(int32_t) * COH_MAX_NODES *
                                  COH_MAX_SLOTS);
    if (!locks || !lock_vc || !waiter_next)
        return DSM_ERR_NOMEM;
    for (uint32_t i = COH_NAMED_BASE; i < COH_MAX_LOCKS; i++)
        locks[i].holder = locks[i].head = locks[i].tail = NO_WAITER;
    return DSM_OK;
}

static size_t lock_msg_size(uint32_t nvc)
{
    return sizeof(coh_msg_lock_t) + nvc * sizeof(uint32_t);
}

static void send_lock_msg(int dst, unsigned id, lock_msg_t *m)
{
    dsm_status_t st = dsm_tp_am_send(dst, id, m, lock_msg_size(m->hdr.nvc));
    if (st != DSM_OK)
        dsm_fatal("lock message to node %d: %s", dst, dsm_status_string(st));
}

/* Parse and check a lock message addressed to this node's table. */
static void parse_lock_msg(int src, const void *payload, size_t len,
                           lock_msg_t *m, int manager_side)
{
    const coh_wire_limits_t lim = {(uint32_t)coh.size, coh.npages,
                                   COH_MAX_SLOTS};
    if (coh_wire_lock(payload, len, &lim, &m->hdr, m->vc) != DSM_OK ||
        (manager_side && (m->hdr.lock == 0 || m->hdr.lock >= COH_MAX_LOCKS ||
                          (m->hdr.lock < COH_NAMED_BASE &&
                           m->hdr.lock >= atomic_load(&next_index)))))
        dsm_fatal("malformed lock message from node %d", src);
}

static void fill_grant(lock_msg_t *g, uint32_t lock, int32_t waiter,
                       uint32_t flags)
{
    g->hdr.lock = lock;
    g->hdr.slot = (uint32_t)(waiter % COH_MAX_SLOTS);
    g->hdr.flags = flags;
    g->hdr.nvc = (uint32_t)coh.size;
    memcpy(g->vc, &lock_vc[(size_t)lock * (size_t)coh.size],
           sizeof(uint32_t) * (size_t)coh.size);
}

/* A grant reaches its thread: a message, or directly when it is local. */
static void apply_grant(const lock_msg_t *m)
{
    coh_slot_t *slot = &coh.slots[m->hdr.slot];
    memcpy(slot->vc, m->vc, m->hdr.nvc * sizeof(uint32_t));
    slot->status = (m->hdr.flags & COH_LOCK_GRANTED) ? 1 : 0;
    __atomic_store_n(&slot->done, 1, __ATOMIC_RELEASE);
}

static void deliver_grant(int dst, lock_msg_t *grant)
{
    if (dst == coh.rank)
        apply_grant(grant);
    else
        send_lock_msg(dst, COH_AM_LOCK_GRANT, grant);
}

/* Manager side of a request from (src, slot), by message or local. */
static void manager_request(int src, const lock_msg_t *req)
{
    lock_msg_t grant;
    const lock_msg_t *m = req;
    lock_state_t *ls = &locks[m->hdr.lock];
    int32_t waiter = src * COH_MAX_SLOTS + (int32_t)m->hdr.slot;
    int reply = 1;
    dsm_mutex_lock(&ls->guard);
    if (ls->holder == NO_WAITER) {
        ls->holder = waiter;
        fill_grant(&grant, m->hdr.lock, waiter, COH_LOCK_GRANTED);
    } else if (m->hdr.flags & COH_LOCK_TRY) {
        fill_grant(&grant, m->hdr.lock, waiter, 0);
    } else {
        waiter_next[waiter] = NO_WAITER;
        if (ls->tail == NO_WAITER)
            ls->head = waiter;
        else
            waiter_next[ls->tail] = waiter;
        ls->tail = waiter;
        reply = 0;
    }
    dsm_mutex_unlock(&ls->guard);
    if (reply)
        deliver_grant(src, &grant);
}

static void on_lock_req(int src, const void *payload, size_t len, void *arg)
{
    lock_msg_t m;
    parse_lock_msg(src, payload, len, &m, 1);
    manager_request(src, &m);
}

/* Manager side of a release by (src, slot), by message or local. */
static void manager_release(int src, const lock_msg_t *rel)
{
    lock_msg_t grant;
    const lock_msg_t *m = rel;
    lock_state_t *ls = &locks[m->hdr.lock];
    int32_t releaser = src * COH_MAX_SLOTS + (int32_t)m->hdr.slot;
    int32_t next;
    dsm_mutex_lock(&ls->guard);
    if (ls->holder != releaser)
        dsm_fatal("node %d released a lock it does not hold", src);
    uint32_t *vc = &lock_vc[(size_t)m->hdr.lock * (size_t)coh.size];
    for (uint32_t j = 0; j < m->hdr.nvc; j++)
        if (m->vc[j] > vc[j])
            vc[j] = m->vc[j];
    next = ls->head;
    if (next != NO_WAITER) {
        ls->head = waiter_next[next];
        if (ls->head == NO_WAITER)
            ls->tail = NO_WAITER;
        fill_grant(&grant, m->hdr.lock, next, COH_LOCK_GRANTED);
    }
    ls->holder = next;
    dsm_mutex_unlock(&ls->guard);
    if (next != NO_WAITER)
        deliver_grant(next / COH_MAX_SLOTS, &grant);
}

static void on_lock_release(int src, const void *payload, size_t len,
                            void *arg)
{
    lock_msg_t m;
    parse_lock_msg(src, payload, len, &m, 1);
    manager_release(src, &m);
}

static void on_lock_grant(int src, const void *payload, size_t len, void *arg)
{
    lock_msg_t m;
    parse_lock_msg(src, payload, len, &m, 0);
    apply_grant(&m);
}

dsm_status_t coh_lock_register_handlers(void)
{
    dsm_status_t st;
    if ((st = coh_am_register(COH_AM_LOCK_REQ, on_lock_req)) != DSM_OK ||
        (st = coh_am_register(COH_AM_LOCK_RELEASE, on_lock_release)) != DSM_OK ||
        (st = coh_am_register(COH_AM_LOCK_GRANT, on_lock_grant)) != DSM_OK)
        return st;
    return DSM_OK;
}

/* ---- public API -------------------------------------------------------- */

static int decode(const dsm_lock_t *lock, int *manager, uint32_t *index)
{
    if (!lock || !coh.initialized)
        return 0;
    uint64_t v = lock->opaque;
    long m = (long)(v >> 32) - 1;
    uint32_t i = (uint32_t)v;
    if (m < 0 || m >= coh.size || i == 0 || i >= COH_MAX_LOCKS)
        return 0;
    *manager = (int)m;
    *index = i;
    return 1;
}

dsm_status_t dsm_lock_init(dsm_lock_t *lock)
{
    if (!lock)
        return DSM_ERR_INVALID;
    if (!coh.initialized)
        return DSM_ERR_STATE;
    uint32_t i = atomic_fetch_add(&next_index, 1);
    if (i >= COH_NAMED_BASE)
        return DSM_ERR_NOMEM;
    lock_state_t *ls = &locks[i];
    ls->holder = ls->head = ls->tail = NO_WAITER;
    lock->opaque = ((uint64_t)(coh.rank + 1) << 32) | i;
    return DSM_OK;
}

static dsm_status_t acquire(dsm_lock_t *lock, uint32_t flags)
{
    int manager;
    uint32_t index;
    if (!decode(lock, &manager, &index))
        return coh.initialized ? DSM_ERR_INVALID : DSM_ERR_STATE;
    int s = coh_slot_self();
    coh_slot_t *slot = &coh.slots[s];
    slot->done = 0;
    lock_msg_t req = {{index, (uint32_t)s, flags, 0}, {0}};
    if (manager == coh.rank)   /* no message to ourselves */
        manager_request(coh.rank, &req);
    else
        send_lock_msg(manager, COH_AM_LOCK_REQ, &req);
    dsm_tp_wait_flag_on(&slot->done, "a lock grant", manager,
                        DSM_ACTIVITY_ABOUT_LOCK, lock->opaque, 0);
    if (!slot->status)
        return DSM_ERR_BUSY;
    coh_protocol_lock();
    coh_acquire_upto(slot->vc);
    coh_protocol_unlock();
    COH_STAT_ADD(lock_acquires, 1);
    dsm_activity_lock(lock->opaque, +1);
    return DSM_OK;
}

static dsm_status_t release(dsm_lock_t *lock)
{
    int manager;
    uint32_t index;
    if (!decode(lock, &manager, &index))
        return coh.initialized ? DSM_ERR_INVALID : DSM_ERR_STATE;
    lock_msg_t rel = {{index, (uint32_t)coh_slot_self(), 0,
                       (uint32_t)coh.size}, {0}};
    dsm_activity_lock(lock->opaque, -1);
    coh_protocol_lock();
    coh_release(0);   /* other threads may be writing */
    memcpy(rel.vc, coh.vc, sizeof(uint32_t) * (size_t)coh.size);
    coh_protocol_unlock();
    if (manager == coh.rank)
        manager_release(coh.rank, &rel);
    else
        send_lock_msg(manager, COH_AM_LOCK_RELEASE, &rel);
    return DSM_OK;
}

/* The calls run on the runtime stack (sys_stack.h says why). */
typedef struct lock_call {
    dsm_lock_t *lock;
    int op;                  /* 0 acquire, 1 try, 2 release */
    dsm_status_t status;
} lock_call_t;

static void lock_call(void *arg)
{
    lock_call_t *c = arg;
    c->status = c->op == 2 ? release(c->lock)
                           : acquire(c->lock, c->op ? COH_LOCK_TRY : 0);
}

static dsm_status_t lock_op(dsm_lock_t *lock, int op)
{
    lock_call_t c = {lock, op, DSM_OK};
    dsm_sys_on_rtstack(lock_call, &c);
    return c.status;
}

dsm_status_t dsm_lock_acquire(dsm_lock_t *lock) { return lock_op(lock, 0); }
dsm_status_t dsm_lock_try(dsm_lock_t *lock) { return lock_op(lock, 1); }
dsm_status_t dsm_lock_release(dsm_lock_t *lock) { return lock_op(lock, 2); }

dsm_lock_t dsm_coh_lock_named(uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    int bits = dsm_config()->named_lock_hash_bits;   /* testing: collide */
    if (bits < 64)
        h &= (1ull << bits) - 1;
    uint32_t manager = (uint32_t)(h % (uint64_t)(coh.size ? coh.size : 1));
    uint32_t index = COH_NAMED_BASE + (uint32_t)((h >> 32) % COH_NAMED_LOCKS);
    dsm_lock_t lock = {((uint64_t)(manager + 1) << 32) | index};
    return lock;
}

dsm_status_t dsm_lock_destroy(dsm_lock_t *lock)
{
    int manager;
    uint32_t index;
    if (!decode(lock, &manager, &index))
        return coh.initialized ? DSM_ERR_INVALID : DSM_ERR_STATE;
    lock->opaque = 0;
    return DSM_OK;
}
