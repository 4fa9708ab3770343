/*
 * coh_barrier.c - the cluster-wide barrier with write notices.
 *
 * Layer: coherence.  dsm_barrier is called by the node's participating
 * application threads; the last to arrive on a node runs the global part:
 * it closes the node's interval (coh_release), sends its write-notice
 * records to node 0, and node 0 answers every node with all records once
 * all have arrived; each node then invalidates what others wrote.  The
 * message handlers only copy and count; the work runs in the waiting thread.
 *
 * The one-way join (dsm_coh_join) is a barrier whose departure waits: the
 * other nodes send their arrivals and go on without waiting, node 0
 * gathers them, applies the departure to itself and holds it; the held
 * departure leaves with node 0's next synchronisation (the next fork's
 * handoff, a barrier, the end of the job), before which the other nodes
 * do nothing with shared memory (fork-join: they wait for the next FORK).
 * A join at which node 0 decides home moves is settled at once instead:
 * the departure leaves, and every node applies it and the moves together
 * (dsm_coh_join_settle on the others; the caller's callback wakes them
 * for it).  See design.md, "The one-way join".
 */
#include <stdatomic.h>
#include <string.h>

#include "base_log.h"
#include "coh_check.h"
#include "coh_protocol.h"
#include "coh_sharing.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "coh_wire.h"
#include "coherence.h"
#include "sys_stack.h"
#include "transport.h"

#define ARRIVE_BYTES  ((size_t)4 << 20)
#define GATHER_BYTES  ((size_t)32 << 20)
/* an arrival's whole pages (coh_push_arrival), and wanted ranges: an
 * arrival's and a departure's */
#define ARRIVE_PUSH_BYTES ((size_t)72 << 10)
#define WANTS_MAX 1024u

/* dsm_barrier's meeting of the node's threads (dsm_barrier_threads). */
static dsm_local_barrier_t local_barrier;
static _Atomic uint32_t local_threads = 1;
/* dsm_barrier's waiters spin this many steps before they sleep: about the
 * time a cluster barrier takes between threads of one node. */
enum { LOCAL_SPINS = 256 };

static uint64_t epoch;                 /* barriers completed on this node */
static char *arrive_buf;

/* node 0: arrivals of the current epoch */
static dsm_mutex_t gather_lock;
static char *gather_buf;               /* depart header + vc + records */
static size_t gather_len;
static uint32_t gather_records;
static int gather_count, gather_overflow;
static uint64_t gather_epoch;          /* the barrier being gathered */
static volatile int gather_complete;
/* whole pages each node pushed at its arrival, read by the departure's
 * build (before it is sent, so before any next arrival), and the wanted
 * ranges of pages other nodes than 0 home, forwarded with it */
static unsigned char *gather_push;     /* size slots of ARRIVE_PUSH_BYTES */
static size_t gather_push_len[COH_MAX_NODES];
static const unsigned char *gather_push_at[COH_MAX_NODES];
static coh_range_t gather_wants[WANTS_MAX];
static uint32_t gather_nwants;
static coh_range_t own_wants[WANTS_MAX];

/* every node: the departure of the current epoch */
static char *depart_buf;
static size_t depart_len;
static volatile int depart_ready;

/* Node 0: takes what other nodes attach to their barrier and join
 * arrivals. */
static dsm_coh_join_extra_fn join_extra_handler;

/* One-way joins.  Node 0: a departure held in depart_buf, not yet sent.
 * Other nodes: arrived at a join, departure not yet applied. */
static int departure_held;
static int departure_due;

static size_t gather_records_offset(void)
{
    return sizeof(coh_msg_depart_t) + sizeof(uint32_t) * (size_t)coh.size;
}

static void gather_reset(void)
{
    gather_len = gather_records_offset();
    gather_records = 0;
    gather_count = 0;
    gather_overflow = 0;
    gather_complete = 0;
    gather_nwants = 0;
    for (int n = 0; n < coh.size; n++)
        gather_push_len[n] = 0;
}

dsm_status_t coh_barrier_setup(void)
{
    arrive_buf = coh_table_alloc(ARRIVE_BYTES);
    depart_buf = coh_table_alloc(GATHER_BYTES);
    if (coh.rank == 0) {
        gather_buf = coh_table_alloc(GATHER_BYTES);
        gather_push = coh_table_alloc(ARRIVE_PUSH_BYTES * (size_t)coh.size);
        if (!gather_push)
            return DSM_ERR_NOMEM;
        for (int n = 0; n < coh.size; n++)
            gather_push_at[n] = gather_push + ARRIVE_PUSH_BYTES * (size_t)n;
    }
    if (!arrive_buf || !depart_buf || (coh.rank == 0 && !gather_buf))
        return DSM_ERR_NOMEM;
    gather_reset();
    return DSM_OK;
}

/* Node 0: add one node's arrival (from the handler or from node 0). */
static void gather_add(int src, const void *payload, size_t len)
{
    /* checked whole here, so that node 0 gathers and plans home moves
     * from well-formed records only */
    const coh_wire_limits_t lim = {(uint32_t)coh.size, coh.npages,
                                   COH_MAX_SLOTS};
    coh_wire_arrive_t arrival;
    if (coh_wire_arrive(payload, len, &lim, &arrival) != DSM_OK)
        dsm_fatal("malformed barrier arrival from node %d (%zu bytes)", src,
                  len);
    coh_msg_arrive_t hdr = arrival.hdr;
    size_t body = arrival.records_len;
    /* what the layer above attached: delivered before the arrival counts,
     * so that whoever waits for every arrival finds it */
    if (arrival.extra && src != 0) {
        if (!join_extra_handler)
            dsm_fatal("a barrier arrival from node %d with %u extra bytes "
                      "nobody takes", src, hdr.extra_len);
        join_extra_handler(src, arrival.extra, hdr.extra_len);
    }
    dsm_mutex_lock(&gather_lock);
    if (hdr.epoch != gather_epoch)
        dsm_fatal("barrier arrival from node %d for barrier %llu while node "
                  "0 gathers barrier %llu", src, (unsigned long long)hdr.epoch,
                  (unsigned long long)gather_epoch);
    uint32_t *vc = (uint32_t *)(gather_buf + sizeof(coh_msg_depart_t));
    vc[src] = hdr.vc_self;
    if (hdr.overflow || body > GATHER_BYTES - gather_len) {
        gather_overflow = 1;
    } else {
        memcpy(gather_buf + gather_len, (const char *)payload + sizeof hdr,
               body);
        gather_len += body;
        gather_records += hdr.nrecords;
    }
    if (hdr.push_len && hdr.push_len <= ARRIVE_PUSH_BYTES && src != 0) {
        memcpy((void *)gather_push_at[src], arrival.push, hdr.push_len);
        gather_push_len[src] = hdr.push_len;
    }
    /* wants: node 0's pages now, the others' with the departure */
    coh_want_grant(arrival.wants, hdr.nwants);
    if (src != 0)
        coh_want_relay(arrival.wants, hdr.nwants);
    for (uint32_t k = 0; k < hdr.nwants && gather_nwants < WANTS_MAX; k++) {
        coh_range_t r = coh_wire_range(arrival.wants, k);
        if (coh.pages[r.first].home != 0)
            gather_wants[gather_nwants++] = r;
    }
    if (++gather_count == coh.size)
        __atomic_store_n(&gather_complete, 1, __ATOMIC_RELEASE);
    dsm_mutex_unlock(&gather_lock);
}

void coh_barrier_arrival(int src, const void *msg, size_t len)
{
    if (coh.rank != 0)
        dsm_fatal("barrier arrival sent to node %d", coh.rank);
    gather_add(src, msg, len);
}

static void on_arrive(int src, const void *payload, size_t len, void *arg)
{
    coh_barrier_arrival(src, payload, len);
}

static void on_depart(int src, const void *payload, size_t len, void *arg)
{
    if (len > GATHER_BYTES || len < sizeof(coh_msg_depart_t) || src != 0)
        dsm_fatal("malformed barrier departure from node %d", src);
    memcpy(depart_buf, payload, len);
    depart_len = len;
    __atomic_store_n(&depart_ready, 1, __ATOMIC_RELEASE);
}

dsm_status_t coh_barrier_register_handlers(void)
{
    dsm_status_t st;
    if ((st = coh_am_register(COH_AM_BARRIER_ARRIVE, on_arrive)) != DSM_OK ||
        (st = coh_am_register(COH_AM_BARRIER_DEPART, on_depart)) != DSM_OK)
        return st;
    return DSM_OK;
}

/* Our arrival: header, the records of our intervals since the last
 * barrier (the others knew everything up to it), the extra bytes; join:
 * a one-way join's. */
static size_t build_arrive(const void *extra, size_t extra_len, int join)
{
    coh_msg_arrive_t hdr = {epoch, coh.vc[coh.rank], 0, 0,
                            (uint32_t)extra_len, 0, 0};
    int overflow;
    char *records = arrive_buf + sizeof hdr;
    size_t len = coh_own_records(records,
                                 ARRIVE_BYTES - sizeof hdr - extra_len -
                                     ARRIVE_PUSH_BYTES -
                                     sizeof own_wants,
                                 &hdr.nrecords, &overflow);
    hdr.overflow = (uint32_t)overflow;
    /* the wanted pages this node homes and wrote, whole */
    if (!overflow)
        hdr.push_len = (uint32_t)coh_push_arrival(
            records, hdr.nrecords, join, records + len, ARRIVE_PUSH_BYTES);
    len += hdr.push_len;
    hdr.nwants = coh_want_take(own_wants, WANTS_MAX);
    memcpy(records + len, own_wants, hdr.nwants * sizeof *own_wants);
    len += hdr.nwants * sizeof *own_wants;
    memcpy(arrive_buf, &hdr, sizeof hdr);
    if (extra_len)
        memcpy(records + len, extra, extra_len);
    return sizeof hdr + len + extra_len;
}

/* Apply a departure and count its barrier done: invalidate what others
 * wrote, merge vector time.  Its home moves are the caller's
 * (apply_moves): node 0 settles a join's moves with the others first. */
static coh_wire_depart_t depart(const char *buf, size_t len)
{
    const coh_wire_limits_t lim = {(uint32_t)coh.size, coh.npages,
                                   COH_MAX_SLOTS};
    coh_wire_depart_t d;
    if (coh_wire_depart(buf, len, &lim, &d) != DSM_OK)
        dsm_fatal("malformed barrier departure (%zu bytes)", len);
    if (d.hdr.epoch != epoch)
        dsm_fatal("barrier departure for barrier %llu at barrier %llu",
                  (unsigned long long)d.hdr.epoch, (unsigned long long)epoch);
    /* buf is depart_buf (page-aligned) or a handoff's 8-byte aligned
     * buffer, so the records' ranges are aligned */
    /* gets from here on may see writes made after the departure; pushed
     * pages are kept by the invalidation that follows */
    coh_push_begin();
    if (d.hdr.overflow) {
        coh_invalidate_all();
    } else {
        coh_push_apply(d.push, d.hdr.push_len);
        coh_push_apply_local();
        coh_acquire_records(d.records, d.hdr.nrecords, 1);
        /* node 0 granted its pages' wants at the gather */
        if (coh.rank != 0)
            coh_want_grant(d.wants, d.hdr.nwants);
    }
    coh_push_end();
    for (int j = 0; j < coh.size; j++) {
        uint32_t v = coh_wire_vc(d.vc, (uint32_t)j);
        if (v > coh.vc[j])
            coh.vc[j] = v;
        coh.vc_at_barrier[j] = coh.vc[j];
    }
    epoch++;
    return d;
}

static void apply_moves(const coh_wire_depart_t *d)
{
    if (!d->hdr.overflow)
        coh_migrate_apply((const char *)d->migrations, d->hdr.nmigrations);
}

/* The rest of every barrier on every node: the departure, then its home
 * moves. */
static void depart_and_move(const char *buf, size_t len)
{
    coh_wire_depart_t d = depart(buf, len);
    apply_moves(&d);
}

/* Node 0: wait for every arrival and build the departure in depart_buf
 * (records, then the planned home moves); the next arrivals may come as
 * soon as it is built. */
static void gather_departure(int join)
{
    dsm_tp_wait_flag_on(&gather_complete, "every node's barrier arrival", -1,
                        DSM_ACTIVITY_ABOUT_EPOCH, epoch, 0);
    dsm_mutex_lock(&gather_lock);
    coh_msg_depart_t hdr = {epoch, (uint32_t)gather_overflow,
                            gather_overflow ? 0 : gather_records, 0, 0, 0, 0};
    size_t out = gather_overflow ? gather_records_offset() : gather_len;
    memcpy(depart_buf, gather_buf, out);
    /* read below, before the departure leaves (no next arrival before) */
    static coh_range_t wants[WANTS_MAX];
    static size_t push_len[COH_MAX_NODES];
    uint32_t nwants = gather_nwants;
    memcpy(wants, gather_wants, nwants * sizeof *wants);
    for (int n = 0; n < coh.size; n++)
        push_len[n] = gather_push_len[n];
    gather_reset();
    gather_epoch++;
    dsm_mutex_unlock(&gather_lock);
    if (!hdr.overflow) {
        coh_sharing_epoch(depart_buf + gather_records_offset(),
                          out - gather_records_offset(), hdr.nrecords);
        const coh_migration_t *moves;
        size_t n = coh_migrate_plan(depart_buf + gather_records_offset(),
                                    out - gather_records_offset(),
                                    hdr.nrecords,
                                    (GATHER_BYTES - out) / sizeof *moves, join,
                                    &moves);
        if (n)   /* moves may be NULL when there are none */
            memcpy(depart_buf + out, moves, n * sizeof *moves);
        out += n * sizeof *moves;
        hdr.nmigrations = (uint32_t)n;
        size_t records_len = out - n * sizeof *moves - gather_records_offset();
        if (nwants * sizeof *wants <= GATHER_BYTES - out) {
            memcpy(depart_buf + out, wants, nwants * sizeof *wants);
            out += nwants * sizeof *wants;
            hdr.nwants = nwants;
        }
        /* the small changes of node 0's pages, its wanted pages and the
         * arrivals' whole pages, for the copies of them */
        hdr.push_len = (uint32_t)coh_push_build(
            depart_buf + gather_records_offset(), records_len, hdr.nrecords,
            join ? COH_PUSH_JOIN : COH_PUSH_BARRIER, gather_push_at,
            push_len, depart_buf + out, GATHER_BYTES - out);
        out += hdr.push_len;
    }
    memcpy(depart_buf, &hdr, sizeof hdr);
    depart_len = out;
}

static void send_departure(void)
{
    for (int n = 1; n < coh.size; n++) {
        dsm_status_t st = dsm_tp_am_send(n, COH_AM_BARRIER_DEPART, depart_buf,
                                         depart_len);
        if (st != DSM_OK)
            dsm_fatal("barrier departure to node %d: %s", n,
                      dsm_status_string(st));
    }
}

static void send_arrival(const void *extra, size_t extra_len, int join)
{
    size_t len = build_arrive(extra, extra_len, join);
    /* node 0 polls for it at its own barrier or join */
    coh_send_arrival(arrive_buf, len);
}

/* A node other than 0: wait for the departure of the epoch it arrived
 * at (into depart_buf). */
static void wait_departure(void)
{
    dsm_tp_wait_flag_on(&depart_ready, "the barrier departure from node 0",
                        -1, DSM_ACTIVITY_ABOUT_EPOCH, epoch, 0);
    depart_ready = 0;
}

/* Before any global step: finish a one-way join.  Node 0 sends a held
 * departure; the other nodes wait for the departure of a join they
 * arrived at and apply it.  Held departures carry no home moves (a join
 * with moves is settled at once, dsm_coh_join_settle). */
void coh_join_finish(void)
{
    if (departure_held) {
        send_departure();
        departure_held = 0;
    }
    if (departure_due) {
        departure_due = 0;
        wait_departure();
        depart_and_move(depart_buf, depart_len);
    }
}

size_t coh_join_embed(void *out, size_t cap)
{
    if (departure_held && depart_len <= cap) {
        memcpy(out, depart_buf, depart_len);
        departure_held = 0;
        return depart_len;
    }
    coh_join_finish();
    return 0;
}

void coh_join_finish_with(const void *departure, size_t len)
{
    if (!len) {
        coh_join_finish();
        return;
    }
    if (!departure_due)
        dsm_fatal("a departure from node 0 this node did not arrive for");
    departure_due = 0;
    depart_and_move(departure, len);
}

void coh_barrier_global(const void *extra, size_t extra_len)
{
    coh_protocol_lock();
    coh_join_finish();
    coh_release_before_arrival(coh_barriers_quiescent());
    if (coh.rank == 0) {
        gather_add(0, arrive_buf, build_arrive(NULL, 0, 0));
        gather_departure(0);
        send_departure();
    } else {
        send_arrival(extra, extra_len, 0);
        wait_departure();
    }
    depart_and_move(depart_buf, depart_len);
    coh_prefetch_epoch(coh_prefetch_pending());
    COH_STAT_ADD(barriers, 1);
    coh_sharing_barrier();
    coh_check_table("a barrier's end");
    coh_protocol_unlock();
}

typedef struct join_call {
    void (*wake_others)(void *);
    void *arg;
    const void *extra;
    size_t extra_len;
} join_call_t;

/* Node 0 holds the departure unless it moves homes.  Moves must be
 * applied by every node together while none of them runs the program:
 * node 0 writes its own stack pages as soon as it runs, some of which may
 * be moving.  So then node 0 sends the departure at once, has the others
 * woken (the caller's wake_others, called here on the runtime stack) to
 * settle with it, and applies the moves with them before it returns. */
static void join_body(void *arg)
{
    join_call_t *c = arg;
    coh_protocol_lock();
    coh_join_finish();
    coh_release_before_arrival(coh_barriers_quiescent());
    if (coh.rank == 0) {
        gather_add(0, arrive_buf, build_arrive(NULL, 0, 1));
        gather_departure(1);
        coh_wire_depart_t d = depart(depart_buf, depart_len);
        if (!d.hdr.overflow && d.hdr.nmigrations) {
            send_departure();
            c->wake_others(c->arg);
            apply_moves(&d);
        } else {
            departure_held = 1;
        }
        coh_prefetch_epoch(coh_prefetch_pending());   /* serial code */
    } else {
        send_arrival(c->extra, c->extra_len, 1);
        departure_due = 1;
        coh_prefetch_epoch(0);    /* idle until the next fork */
    }
    COH_STAT_ADD(barriers, 1);
    coh_check_table("a join");
    coh_protocol_unlock();
}

void dsm_coh_join_extra_handler(dsm_coh_join_extra_fn fn)
{
    join_extra_handler = fn;
}

dsm_status_t dsm_coh_join(void (*wake_others)(void *), void *arg,
                          const void *extra, size_t extra_len)
{
    if (!coh.initialized)
        return DSM_ERR_STATE;
    if (!wake_others || extra_len > COH_JOIN_EXTRA_MAX ||
        (extra_len && (!extra || coh.rank == 0)))
        return DSM_ERR_INVALID;
    join_call_t c = {wake_others, arg, extra, extra_len};
    if (coh.size > 1)
        dsm_sys_on_rtstack(join_body, &c);
    return DSM_OK;
}

static void settle_body(void *unused)
{
    (void)unused;
    coh_protocol_lock();
    coh_join_finish();
    coh_protocol_unlock();
}

dsm_status_t dsm_coh_join_settle(void)
{
    if (!coh.initialized)
        return DSM_ERR_STATE;
    if (coh.rank != 0)
        dsm_sys_on_rtstack(settle_body, NULL);
    return DSM_OK;
}

static _Atomic int quiescent;   /* dsm_barrier_quiescent */

dsm_status_t dsm_barrier_quiescent(int on)
{
    if (on != 0 && on != 1)
        return DSM_ERR_INVALID;
    atomic_store(&quiescent, on);
    return DSM_OK;
}

int coh_barriers_quiescent(void) { return atomic_load(&quiescent); }

dsm_status_t dsm_barrier_threads(int threads_per_node)
{
    if (threads_per_node < 1 || threads_per_node > COH_MAX_SLOTS)
        return DSM_ERR_INVALID;
    if (atomic_load(&local_barrier.arrived) != 0)
        return DSM_ERR_STATE;
    atomic_store(&local_threads, (uint32_t)threads_per_node);
    return DSM_OK;
}

typedef struct barrier_call {
    const void *extra;
    size_t extra_len;
    dsm_status_t st;
} barrier_call_t;

static dsm_status_t barrier_body(const void *extra, size_t extra_len)
{
    uint32_t gen = dsm_local_barrier_gen(&local_barrier);
    if (!dsm_local_barrier_arrive(&local_barrier,
                                  atomic_load(&local_threads))) {
        dsm_local_barrier_wait(&local_barrier, gen, LOCAL_SPINS);
        return DSM_OK;
    }
    coh_barrier_global(extra, extra_len);
    dsm_local_barrier_release(&local_barrier, gen);
    return DSM_OK;
}

static void barrier_call(void *arg)
{
    barrier_call_t *c = arg;
    c->st = barrier_body(c->extra, c->extra_len);
}

dsm_status_t dsm_barrier(void)
{
    if (!coh.initialized)
        return DSM_ERR_STATE;
    barrier_call_t c = {NULL, 0, DSM_OK};
    dsm_sys_on_rtstack(barrier_call, &c);
    return c.st;
}

dsm_status_t dsm_coh_barrier_with(const void *extra, size_t extra_len)
{
    if (!coh.initialized)
        return DSM_ERR_STATE;
    /* with several threads per node only the last one's bytes would go */
    if (extra_len > COH_JOIN_EXTRA_MAX ||
        (extra_len && (!extra || coh.rank == 0 ||
                       atomic_load(&local_threads) != 1)))
        return DSM_ERR_INVALID;
    barrier_call_t c = {extra, extra_len, DSM_OK};
    dsm_sys_on_rtstack(barrier_call, &c);
    return c.st;
}
