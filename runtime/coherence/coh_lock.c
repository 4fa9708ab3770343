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
 *
 * Named locks (dsm_coh_lock_named: critical names, std::mutex addresses...)
 * carry their full key in every request and release; the manager, chosen
 * by a hash of the key, finds the key in a table of keys (a bucket chain)
 * so distinct names are always distinct locks, whatever their hashes.  The
 * table has DSM_NAMED_LOCKS entries, allocated at start-up (handlers never
 * malloc).  A free lock keeps its entry until a new name needs one: then
 * the least recently freed entry is reused, its vector time folded into
 * retired_vc, with which every new entry starts (an acquire of a new name
 * acquires at least what any reused name's holders released: correct,
 * only conservative).  Only when every entry is held or waited for does a
 * new name end the job, naming DSM_NAMED_LOCKS.
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

#define COH_MAX_LOCKS (1u << 18)       /* dsm_lock_init's, per manager */
#define NAMED_BIT (1ull << 63)          /* a handle that holds a key */
#define NO_WAITER (-1)
#define NONE (-1)

typedef struct lock_state {
    dsm_mutex_t guard;
    int32_t holder;          /* waiter id (node * COH_MAX_SLOTS + slot), -1 */
    int32_t head, tail;      /* FIFO of waiter ids */
} lock_state_t;

static lock_state_t *locks;       /* locks this node manages */
static uint32_t *lock_vc;         /* [COH_MAX_LOCKS][size] */
static int32_t *waiter_next;      /* [COH_MAX_NODES * COH_MAX_SLOTS] */
static _Atomic uint32_t next_index = 1;

/* The named locks this node manages: one entry per key. */
typedef struct named_entry {
    uint64_t key;
    int32_t chain;               /* next in its bucket, or in the free list */
    int32_t idle_prev, idle_next;   /* the idle list, while holder is -1 */
    int32_t holder, head, tail;  /* as lock_state_t */
} named_entry_t;

static struct {
    dsm_mutex_t guard;           /* leaf (design.md, row 13): the table */
    named_entry_t *e;            /* [cap] */
    uint32_t *vc;                /* [cap][size] */
    int32_t *bucket;             /* [mask + 1] chain heads */
    uint32_t cap, mask;
    int32_t free_head;           /* never used entries */
    int32_t idle_head, idle_tail;   /* free locks, least recently freed first */
    uint32_t *retired_vc;        /* max over the reused entries' vc */
} named;

static uint64_t named_hash(uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    int bits = dsm_config()->named_lock_hash_bits;   /* testing: collide */
    if (bits < 64)
        h &= (1ull << bits) - 1;
    return h;
}

static int named_manager(uint64_t key)
{
    return (int)(named_hash(key) % (uint64_t)(coh.size ? coh.size : 1));
}

static dsm_status_t named_setup(void)
{
    uint32_t cap = dsm_config()->named_locks, nb = 1;
    while (nb < cap)
        nb <<= 1;
    named.cap = cap;
    named.mask = nb - 1;
    named.e = coh_table_alloc(sizeof(named_entry_t) * cap);
    named.vc = coh_table_alloc(sizeof(uint32_t) * cap * (size_t)coh.size);
    named.bucket = coh_table_alloc(sizeof(int32_t) * nb);
    named.retired_vc = coh_table_alloc(sizeof(uint32_t) * (size_t)coh.size);
    if (!named.e || !named.vc || !named.bucket || !named.retired_vc)
        return DSM_ERR_NOMEM;
    for (uint32_t b = 0; b < nb; b++)
        named.bucket[b] = NONE;
    for (uint32_t i = 0; i < cap; i++)
        named.e[i].chain = i + 1 < cap ? (int32_t)(i + 1) : NONE;
    named.free_head = 0;
    named.idle_head = named.idle_tail = NONE;
    return DSM_OK;
}

static uint32_t *named_vc(int32_t i)
{
    return &named.vc[(size_t)i * (size_t)coh.size];
}

static int32_t *named_head(uint64_t key)
{
    uint64_t h = named_hash(key);
    return &named.bucket[(h ^ h >> 32) & named.mask];
}

static void idle_unlink(int32_t i)
{
    named_entry_t *x = &named.e[i];
    if (x->idle_prev == NONE)
        named.idle_head = x->idle_next;
    else
        named.e[x->idle_prev].idle_next = x->idle_next;
    if (x->idle_next == NONE)
        named.idle_tail = x->idle_prev;
    else
        named.e[x->idle_next].idle_prev = x->idle_prev;
}

static void idle_append(int32_t i)
{
    named_entry_t *x = &named.e[i];
    x->idle_next = NONE;
    x->idle_prev = named.idle_tail;
    if (named.idle_tail == NONE)
        named.idle_head = i;
    else
        named.e[named.idle_tail].idle_next = i;
    named.idle_tail = i;
}

/* The entry of key, under named.guard; NONE if it has none. */
static int32_t named_find(uint64_t key)
{
    for (int32_t i = *named_head(key); i != NONE; i = named.e[i].chain)
        if (named.e[i].key == key)
            return i;
    return NONE;
}

/* The entry of key, made if it has none (handler side: no malloc).  An
 * entry found free is on the idle list; one made is on no list. */
static int32_t named_get(uint64_t key, int *made)
{
    int32_t i = named_find(key);
    *made = i == NONE;
    if (i != NONE)
        return i;
    uint32_t n = (uint32_t)coh.size;
    if (named.free_head != NONE) {
        i = named.free_head;
        named.free_head = named.e[i].chain;
    } else if (named.idle_head != NONE) {
        i = named.idle_head;      /* reuse the least recently freed lock */
        idle_unlink(i);
        int32_t *p = named_head(named.e[i].key);
        while (*p != i)
            p = &named.e[*p].chain;
        *p = named.e[i].chain;
        const uint32_t *vc = named_vc(i);
        for (uint32_t j = 0; j < n; j++)
            if (vc[j] > named.retired_vc[j])
                named.retired_vc[j] = vc[j];
    } else {
        dsm_fatal("node %d manages %u named locks (critical sections, "
                  "std::mutex, ...), all held or waited for, and another "
                  "is needed: raise DSM_NAMED_LOCKS", coh.rank, named.cap);
    }
    named_entry_t *x = &named.e[i];
    x->key = key;
    x->holder = x->head = x->tail = NO_WAITER;
    memcpy(named_vc(i), named.retired_vc, sizeof(uint32_t) * n);
    int32_t *head = named_head(key);
    x->chain = *head;
    *head = i;
    return i;
}

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
    return named_setup();
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
    if (coh_wire_lock(payload, len, &lim, &m->hdr, m->vc) != DSM_OK)
        dsm_fatal("malformed lock message from node %d", src);
    if (!manager_side)
        return;
    if (m->hdr.flags & COH_LOCK_NAMED) {
        if (m->hdr.lock != 0 || (m->hdr.key & NAMED_BIT))
            dsm_fatal("malformed lock message from node %d", src);
        if (named_manager(m->hdr.key) != coh.rank)
            dsm_fatal("node %d sent named lock 0x%llx to node %d, not its "
                      "manager: DSM_NAMED_LOCK_HASH_BITS differs between "
                      "nodes", src, (unsigned long long)m->hdr.key,
                      coh.rank);
    } else if (m->hdr.lock == 0 ||
               m->hdr.lock >= atomic_load(&next_index)) {
        dsm_fatal("malformed lock message from node %d", src);
    }
}

static void fill_grant(lock_msg_t *g, const uint32_t *vc, int32_t waiter,
                       uint32_t flags)
{
    g->hdr.lock = 0;              /* the slot says whose; not read */
    g->hdr.slot = (uint32_t)(waiter % COH_MAX_SLOTS);
    g->hdr.flags = flags;
    g->hdr.nvc = (uint32_t)coh.size;
    g->hdr.key = 0;
    memcpy(g->vc, vc, sizeof(uint32_t) * (size_t)coh.size);
}

static uint32_t *index_vc(uint32_t lock)
{
    return &lock_vc[(size_t)lock * (size_t)coh.size];
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

/* A request for a lock whose state is *holder, *head, *tail (under its
 * guard): grant (1), refuse a try (1, g not granted), or queue (0). */
static int queue_request(int32_t *holder, int32_t *head, int32_t *tail,
                         const uint32_t *vc, int32_t waiter, uint32_t flags,
                         lock_msg_t *g)
{
    if (*holder == NO_WAITER) {
        *holder = waiter;
        fill_grant(g, vc, waiter, COH_LOCK_GRANTED);
    } else if (flags & COH_LOCK_TRY) {
        fill_grant(g, vc, waiter, 0);
    } else {
        waiter_next[waiter] = NO_WAITER;
        if (*tail == NO_WAITER)
            *head = waiter;
        else
            waiter_next[*tail] = waiter;
        *tail = waiter;
        return 0;
    }
    return 1;
}

/* Manager side of a request from (src, slot), by message or local. */
static void manager_request(int src, const lock_msg_t *req)
{
    lock_msg_t grant;
    const lock_msg_t *m = req;
    int32_t waiter = src * COH_MAX_SLOTS + (int32_t)m->hdr.slot;
    int reply;
    if (m->hdr.flags & COH_LOCK_NAMED) {
        dsm_mutex_lock(&named.guard);
        int made;
        int32_t i = named_get(m->hdr.key, &made);
        named_entry_t *x = &named.e[i];
        if (!made && x->holder == NO_WAITER)
            idle_unlink(i);       /* granted below: no longer reusable */
        reply = queue_request(&x->holder, &x->head, &x->tail, named_vc(i),
                              waiter, m->hdr.flags, &grant);
        dsm_mutex_unlock(&named.guard);
    } else {
        lock_state_t *ls = &locks[m->hdr.lock];
        dsm_mutex_lock(&ls->guard);
        reply = queue_request(&ls->holder, &ls->head, &ls->tail,
                              index_vc(m->hdr.lock), waiter, m->hdr.flags,
                              &grant);
        dsm_mutex_unlock(&ls->guard);
    }
    if (reply)
        deliver_grant(src, &grant);
}

static void on_lock_req(int src, const void *payload, size_t len, void *arg)
{
    lock_msg_t m;
    parse_lock_msg(src, payload, len, &m, 1);
    manager_request(src, &m);
}

/* A release by releaser of a lock (under its guard): merge its vector
 * time, pass the lock to the next waiter; that waiter or NO_WAITER. */
static int32_t dequeue_release(int src, int32_t *holder, int32_t *head,
                               int32_t *tail, uint32_t *vc,
                               int32_t releaser, const lock_msg_t *m,
                               lock_msg_t *g)
{
    if (*holder != releaser)
        dsm_fatal("node %d released a lock it does not hold", src);
    for (uint32_t j = 0; j < m->hdr.nvc; j++)
        if (m->vc[j] > vc[j])
            vc[j] = m->vc[j];
    int32_t next = *head;
    if (next != NO_WAITER) {
        *head = waiter_next[next];
        if (*head == NO_WAITER)
            *tail = NO_WAITER;
        fill_grant(g, vc, next, COH_LOCK_GRANTED);
    }
    *holder = next;
    return next;
}

/* Manager side of a release by (src, slot), by message or local. */
static void manager_release(int src, const lock_msg_t *rel)
{
    lock_msg_t grant;
    const lock_msg_t *m = rel;
    int32_t releaser = src * COH_MAX_SLOTS + (int32_t)m->hdr.slot;
    int32_t next;
    if (m->hdr.flags & COH_LOCK_NAMED) {
        dsm_mutex_lock(&named.guard);
        int32_t i = named_find(m->hdr.key);
        if (i == NONE)
            dsm_fatal("node %d released a lock it does not hold", src);
        named_entry_t *x = &named.e[i];
        next = dequeue_release(src, &x->holder, &x->head, &x->tail,
                               named_vc(i), releaser, m, &grant);
        if (next == NO_WAITER)
            idle_append(i);       /* free: reusable by another name */
        dsm_mutex_unlock(&named.guard);
    } else {
        lock_state_t *ls = &locks[m->hdr.lock];
        dsm_mutex_lock(&ls->guard);
        next = dequeue_release(src, &ls->holder, &ls->head, &ls->tail,
                               index_vc(m->hdr.lock), releaser, m, &grant);
        dsm_mutex_unlock(&ls->guard);
    }
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

/* A handle: (manager + 1) << 32 | index for dsm_lock_init's locks,
 * NAMED_BIT | key for named ones (their manager follows from the key). */
static int decode(const dsm_lock_t *lock, int *manager, uint32_t *index,
                  uint64_t *key)
{
    if (!lock || !coh.initialized)
        return 0;
    uint64_t v = lock->opaque;
    if (v & NAMED_BIT) {
        *key = v & ~NAMED_BIT;
        *index = 0;
        *manager = named_manager(*key);
        return 1;
    }
    long m = (long)(v >> 32) - 1;
    uint32_t i = (uint32_t)v;
    if (m < 0 || m >= coh.size || i == 0 || i >= COH_MAX_LOCKS)
        return 0;
    *manager = (int)m;
    *index = i;
    *key = 0;
    return 1;
}

dsm_status_t dsm_lock_init(dsm_lock_t *lock)
{
    if (!lock)
        return DSM_ERR_INVALID;
    if (!coh.initialized)
        return DSM_ERR_STATE;
    uint32_t i = atomic_fetch_add(&next_index, 1);
    if (i >= COH_MAX_LOCKS)
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
    uint64_t key;
    if (!decode(lock, &manager, &index, &key))
        return coh.initialized ? DSM_ERR_INVALID : DSM_ERR_STATE;
    if (lock->opaque & NAMED_BIT)
        flags |= COH_LOCK_NAMED;
    int s = coh_slot_self();
    coh_slot_t *slot = &coh.slots[s];
    slot->done = 0;
    lock_msg_t req = {{index, (uint32_t)s, flags, 0, key}, {0}};
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
    uint64_t key;
    if (!decode(lock, &manager, &index, &key))
        return coh.initialized ? DSM_ERR_INVALID : DSM_ERR_STATE;
    uint32_t flags = (lock->opaque & NAMED_BIT) ? COH_LOCK_NAMED : 0;
    lock_msg_t rel = {{index, (uint32_t)coh_slot_self(), flags,
                       (uint32_t)coh.size, key}, {0}};
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
    if (key & NAMED_BIT)
        dsm_fatal("named lock key 0x%llx: keys are addresses below 2^63",
                  (unsigned long long)key);
    dsm_lock_t lock = {NAMED_BIT | key};
    return lock;
}

dsm_status_t dsm_lock_destroy(dsm_lock_t *lock)
{
    int manager;
    uint32_t index;
    uint64_t key;
    if (!decode(lock, &manager, &index, &key))
        return coh.initialized ? DSM_ERR_INVALID : DSM_ERR_STATE;
    lock->opaque = 0;
    return DSM_OK;
}
