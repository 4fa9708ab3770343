/*
 * tp_rma.c - one-sided get and put on the registered segments of any node,
 * and flush.
 *
 * Layer: transport.  Entry points: dsm_tp_get, dsm_tp_get_batch,
 * dsm_tp_get_many,
 * dsm_tp_put, dsm_tp_put_nb, dsm_tp_flush (any application thread and the fault handler; not from
 * active-message handlers, which must not block), tp_resolve (also used by
 * tp_atomic.c).
 *
 * The calling node's own segments are copied with memcpy: the memory is
 * ours, and no transport could do better.  So are the segments of peers on
 * this host that tp_direct.c mapped (a get through tp_direct_copy.c, which
 * copies pages new here from file to file).  Everything else goes through
 * ucp_get_nbx / ucp_put_nbx on the peer's endpoint and remote key, and a
 * blocking call polls until completion (tp_wait_request).  Memory type
 * HOST is given so UCX does not probe the buffer.
 *
 * Completing a put takes two steps, in this order: the put's own request
 * completes (UCX has sent it; its source buffer is free), then an endpoint
 * flush (the data is visible at the target).  The order matters where UCX
 * emulates puts with messages (shared memory, TCP: the target's progress
 * writes and acknowledges): a put that found the target's receive queue
 * full waits in UCX's pending queue, and UCX 1.13 counts only puts already
 * sent.  Its worker flush then returned at once with such a put unsent (the
 * shared-memory interface's flush ignores the pending queue), so
 * dsm_tp_flush(-1) reported puts complete whose data had not left this
 * node (reliability.md, "Hangs under load"; node_tp_flush.c).  So a
 * non-blocking put keeps its request in a table of the calling thread
 * (TLS, fixed size: the fault handler may put), a flush first waits for
 * the thread's puts to be sent and then flushes each endpoint in turn;
 * the worker flush is not used.
 */
#include <stdatomic.h>
#include <string.h>

#include "base_log.h"
#include "sys_activity.h"
#include "sys_region.h"
#include "sys_stack.h"
#include "tp_counters.h"
#include "tp_direct_copy.h"
#include "tp_progress.h"
#include "tp_rma.h"
#include "tp_state.h"
#include "tp_status.h"

dsm_status_t tp_resolve(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        size_t len, uint64_t *raddr, ucp_rkey_h *rkey)
{
    if (!tp.initialized)
        return DSM_ERR_STATE;
    dsm_status_t st = tp_check_rank(rank);
    if (st != DSM_OK)
        return st;
    if (!tp_seg_valid(seg))
        return DSM_ERR_INVALID;
    const tp_peer_t *p = &tp.peers[rank];
    if (offset > p->seg_size[seg] || len > p->seg_size[seg] - offset)
        return DSM_ERR_INVALID;
    *raddr = p->seg_base[seg] + offset;
    *rkey = p->rkey[seg];
    return DSM_OK;
}

static const ucp_request_param_t host_memory = {
    .op_attr_mask = UCP_OP_ATTR_FIELD_MEMORY_TYPE,
    .memory_type = UCS_MEMORY_TYPE_HOST,
};

static dsm_status_t tp_get_here(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        void *local, size_t len)
{
    tp_check_not_in_handler("dsm_tp_get");
    DSM_INVARIANT(!(len && dsm_sys_sharable(local, len)),
                  "a get into sharable memory");
    uint64_t raddr;
    ucp_rkey_h rkey;
    dsm_status_t st = tp_resolve(rank, seg, offset, len, &raddr, &rkey);
    if (st != DSM_OK || len == 0)
        return st;
    if (!local)
        return DSM_ERR_INVALID;
    const unsigned char *direct = tp.peers[rank].direct[seg];
    if (rank == tp.rank) {
        memcpy(local, (const void *)(uintptr_t)raddr, len);
    } else if (direct) {
        /* what the peer released before our acquire is in its memory */
        atomic_thread_fence(memory_order_acquire);
        tp_direct_copy(rank, seg, offset, local, len);
    } else {
        /* on the activity board: dsmrun names it if the node dies now */
        dsm_activity_saved_t saved;
        dsm_activity_fetch_begin(&saved, rank, (uint32_t)seg, offset);
        ucs_status_ptr_t req = ucp_get_nbx(tp.peers[rank].ep, local, len,
                                           raddr, rkey, &host_memory);
        st = tp_wait_request(req, "a get from", rank);
        dsm_activity_end(&saved);
        if (st != DSM_OK)
            return st;
    }
    tp_count_get(len);
    return DSM_OK;
}

/* Gets in flight at once in a batch: their requests live on the stack. */
#define GETS_IN_FLIGHT 64

static dsm_status_t tp_get_batch_here(int rank, dsm_tp_segment_t seg,
                              const dsm_tp_get_item_t *items, size_t n)
{
    tp_check_not_in_handler("dsm_tp_get_batch");
    dsm_status_t st = tp_check_rank(rank);
    if (st != DSM_OK || !tp.initialized)
        return st != DSM_OK ? st : DSM_ERR_STATE;
    if (!tp_seg_valid(seg))
        return DSM_ERR_INVALID;
    if (rank == tp.rank || tp.peers[rank].direct[seg]) {
        /* copies: nothing to overlap */
        for (size_t i = 0; i < n && st == DSM_OK; i++)
            st = tp_get_here(rank, seg, items[i].offset, items[i].local,
                             items[i].len);
        return st;
    }
    for (size_t done = 0; done < n && st == DSM_OK;) {
        size_t k = n - done < GETS_IN_FLIGHT ? n - done : GETS_IN_FLIGHT;
        ucs_status_ptr_t reqs[GETS_IN_FLIGHT];
        size_t issued = 0;
        dsm_activity_saved_t saved;
        dsm_activity_fetch_begin(&saved, rank, (uint32_t)seg,
                                 items[done].offset);
        for (; issued < k; issued++) {
            const dsm_tp_get_item_t *it = &items[done + issued];
            uint64_t raddr;
            ucp_rkey_h rkey;
            st = tp_resolve(rank, seg, it->offset, it->len, &raddr, &rkey);
            if (st == DSM_OK && !it->local)
                st = DSM_ERR_INVALID;
            DSM_INVARIANT(!(it->len && dsm_sys_sharable(it->local, it->len)),
                          "a get into sharable memory");
            if (st != DSM_OK)
                break;
            reqs[issued] = it->len ? ucp_get_nbx(tp.peers[rank].ep, it->local,
                                                 it->len, raddr, rkey,
                                                 &host_memory)
                                   : NULL;
            tp_count_get(it->len);
        }
        /* every issued request is waited for, even after a failure: UCX
         * still writes into its buffer */
        for (size_t i = 0; i < issued; i++) {
            dsm_status_t w = tp_wait_request(reqs[i], "a get from", rank);
            if (st == DSM_OK)
                st = w;
        }
        dsm_activity_end(&saved);
        done += issued;
    }
    return st;
}

/* Gets from several nodes: copies first (own and mapped segments), then
 * the remote ones in flight together, GETS_IN_FLIGHT at a time. */
static dsm_status_t tp_get_many_here(dsm_tp_segment_t seg,
                                     const dsm_tp_get_any_t *items, size_t n)
{
    tp_check_not_in_handler("dsm_tp_get_many");
    if (!tp.initialized)
        return DSM_ERR_STATE;
    if (!tp_seg_valid(seg))
        return DSM_ERR_INVALID;
    dsm_status_t st = DSM_OK;
    size_t remote = 0;
    for (size_t i = 0; i < n && st == DSM_OK; i++) {
        st = tp_check_rank(items[i].rank);
        if (st != DSM_OK)
            break;
        if (items[i].rank == tp.rank || tp.peers[items[i].rank].direct[seg])
            st = tp_get_here(items[i].rank, seg, items[i].offset,
                             items[i].local, items[i].len);
        else
            remote++;
    }
    for (size_t next = 0; remote && st == DSM_OK;) {
        ucs_status_ptr_t reqs[GETS_IN_FLIGHT];
        int ranks[GETS_IN_FLIGHT];
        size_t issued = 0;
        dsm_activity_saved_t saved = {0};
        int board = 0;
        for (; next < n && issued < GETS_IN_FLIGHT; next++) {
            const dsm_tp_get_any_t *it = &items[next];
            if (it->rank == tp.rank || tp.peers[it->rank].direct[seg])
                continue;
            remote--;
            uint64_t raddr;
            ucp_rkey_h rkey;
            st = tp_resolve(it->rank, seg, it->offset, it->len, &raddr,
                            &rkey);
            if (st == DSM_OK && !it->local)
                st = DSM_ERR_INVALID;
            DSM_INVARIANT(!(it->len && dsm_sys_sharable(it->local, it->len)),
                          "a get into sharable memory");
            if (st != DSM_OK)
                break;
            if (!board) {
                /* the board names one node: the first asked */
                dsm_activity_fetch_begin(&saved, it->rank, (uint32_t)seg,
                                         it->offset);
                board = 1;
            }
            ranks[issued] = it->rank;
            reqs[issued++] = it->len ? ucp_get_nbx(tp.peers[it->rank].ep,
                                                   it->local, it->len, raddr,
                                                   rkey, &host_memory)
                                     : NULL;
            tp_count_get(it->len);
        }
        /* every issued request is waited for, even after a failure: UCX
         * still writes into its buffer */
        for (size_t i = 0; i < issued; i++) {
            dsm_status_t w = tp_wait_request(reqs[i], "a get from", ranks[i]);
            if (st == DSM_OK)
                st = w;
        }
        if (board)
            dsm_activity_end(&saved);
    }
    return st;
}

/* Issue the put; *req receives the UCX request (NULL if done at once). */
static dsm_status_t start_put(int rank, dsm_tp_segment_t seg,
                              uint64_t offset, const void *local, size_t len,
                              ucs_status_ptr_t *req)
{
    uint64_t raddr;
    ucp_rkey_h rkey;
    *req = NULL;
    dsm_status_t st = tp_resolve(rank, seg, offset, len, &raddr, &rkey);
    if (st != DSM_OK || len == 0)
        return st;
    if (!local)
        return DSM_ERR_INVALID;
    DSM_INVARIANT(!dsm_sys_sharable(local, len),
                  "a put from sharable memory");
    unsigned char *direct = tp.peers[rank].direct[seg];
    if (rank == tp.rank) {
        memcpy((void *)(uintptr_t)raddr, local, len);
    } else if (direct) {
        memcpy(direct + offset, local, len);
        /* visible before anything this node sends afterwards */
        atomic_thread_fence(memory_order_release);
    } else {
        ucs_status_ptr_t r = ucp_put_nbx(tp.peers[rank].ep, local, len, raddr,
                                         rkey, &host_memory);
        if (UCS_PTR_IS_ERR(r))
            return tp_status(UCS_PTR_STATUS(r));
        *req = r;
    }
    tp_count_put(len);
    return DSM_OK;
}

/* This thread's non-blocking puts whose requests have not completed. */
#define PUTS_TRACKED 128
static TP_THREAD_LOCAL struct {
    unsigned count;
    dsm_status_t error;              /* the first failure, for the flush */
    ucs_status_ptr_t req[PUTS_TRACKED];
} unsent;

/* Wait until every tracked put was sent (local completion). */
static void wait_puts_sent(void)
{
    for (unsigned i = 0; i < unsent.count; i++) {
        dsm_status_t st = tp_wait_request(unsent.req[i], "the send of a put",
                                          -1);
        if (st != DSM_OK && unsent.error == DSM_OK)
            unsent.error = st;
    }
    unsent.count = 0;
}

static dsm_status_t tp_put_here(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        const void *local, size_t len)
{
    tp_check_not_in_handler("dsm_tp_put");
    ucs_status_ptr_t put;
    dsm_status_t st = start_put(rank, seg, offset, local, len, &put);
    if (st != DSM_OK || rank == tp.rank || len == 0)
        return st;
    /* sent first: a flush does not wait for a put still queued in UCX */
    st = tp_wait_request(put, "a put to", rank);
    if (st != DSM_OK)
        return st;
    ucs_status_ptr_t flush = ucp_ep_flush_nbx(tp.peers[rank].ep,
                                              &host_memory);
    return tp_wait_request(flush, "a put to", rank);
}

static dsm_status_t tp_put_nb_here(int rank, dsm_tp_segment_t seg, uint64_t offset,
                           const void *local, size_t len)
{
    tp_check_not_in_handler("dsm_tp_put_nb");
    ucs_status_ptr_t put;
    dsm_status_t st = start_put(rank, seg, offset, local, len, &put);
    if (put) {
        if (unsent.count == PUTS_TRACKED)
            wait_puts_sent();
        unsent.req[unsent.count++] = put;
    }
    return st;
}

static dsm_status_t flush_peer(int rank)
{
    ucs_status_ptr_t req = ucp_ep_flush_nbx(tp.peers[rank].ep, &host_memory);
    return tp_wait_request(req, "a flush of operations to", rank);
}

static dsm_status_t tp_flush_here(int rank)
{
    tp_check_not_in_handler("dsm_tp_flush");
    if (!tp.initialized)
        return DSM_ERR_STATE;
    if (rank != -1) {
        dsm_status_t st = tp_check_rank(rank);
        if (st != DSM_OK)
            return st;
    }
    wait_puts_sent();
    dsm_status_t st = unsent.error;
    unsent.error = DSM_OK;
    if (!tp.worker || rank == tp.rank)
        return st;   /* own memory is written synchronously */
    for (int r = rank == -1 ? 0 : rank; r < tp.size && st == DSM_OK; r++) {
        if (r != tp.rank && tp.peers[r].ep)
            st = flush_peer(r);
        if (rank != -1)
            break;
    }
    return st;
}

/* ---- entry points ---------------------------------------------------------
 * Each leaves a sharable stack for the runtime stack first: the waits
 * progress, so handlers would run there (see dsm_sys_stack_sharable). */
typedef struct rma_call {
    int rank;
    dsm_tp_segment_t seg;
    uint64_t offset;
    void *local;
    const void *clocal;
    size_t len;
    const dsm_tp_get_item_t *items;
    const dsm_tp_get_any_t *many;
    dsm_status_t st;
} rma_call_t;

static void get_body(void *p)
{
    rma_call_t *c = p;
    c->st = tp_get_here(c->rank, c->seg, c->offset, c->local, c->len);
}
static void get_batch_body(void *p)
{
    rma_call_t *c = p;
    c->st = tp_get_batch_here(c->rank, c->seg, c->items, c->len);
}
static void get_many_body(void *p)
{
    rma_call_t *c = p;
    c->st = tp_get_many_here(c->seg, c->many, c->len);
}
static void put_body(void *p)
{
    rma_call_t *c = p;
    c->st = tp_put_here(c->rank, c->seg, c->offset, c->clocal, c->len);
}
static void put_nb_body(void *p)
{
    rma_call_t *c = p;
    c->st = tp_put_nb_here(c->rank, c->seg, c->offset, c->clocal, c->len);
}
static void flush_body(void *p)
{
    rma_call_t *c = p;
    c->st = tp_flush_here(c->rank);
}

dsm_status_t dsm_tp_get(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        void *local, size_t len)
{
    if (!dsm_sys_stack_sharable())
        return tp_get_here(rank, seg, offset, local, len);
    rma_call_t c = {.rank = rank, .seg = seg, .offset = offset,
                    .local = local, .len = len};
    dsm_sys_on_rtstack(get_body, &c);
    return c.st;
}

dsm_status_t dsm_tp_get_batch(int rank, dsm_tp_segment_t seg,
                              const dsm_tp_get_item_t *items, size_t n)
{
    if (!dsm_sys_stack_sharable())
        return tp_get_batch_here(rank, seg, items, n);
    rma_call_t c = {.rank = rank, .seg = seg, .items = items, .len = n};
    dsm_sys_on_rtstack(get_batch_body, &c);
    return c.st;
}

dsm_status_t dsm_tp_get_many(dsm_tp_segment_t seg,
                             const dsm_tp_get_any_t *items, size_t n)
{
    if (!dsm_sys_stack_sharable())
        return tp_get_many_here(seg, items, n);
    rma_call_t c = {.seg = seg, .many = items, .len = n};
    dsm_sys_on_rtstack(get_many_body, &c);
    return c.st;
}

dsm_status_t dsm_tp_put(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        const void *local, size_t len)
{
    if (!dsm_sys_stack_sharable())
        return tp_put_here(rank, seg, offset, local, len);
    rma_call_t c = {.rank = rank, .seg = seg, .offset = offset,
                    .clocal = local, .len = len};
    dsm_sys_on_rtstack(put_body, &c);
    return c.st;
}

dsm_status_t dsm_tp_put_nb(int rank, dsm_tp_segment_t seg, uint64_t offset,
                           const void *local, size_t len)
{
    if (!dsm_sys_stack_sharable())
        return tp_put_nb_here(rank, seg, offset, local, len);
    rma_call_t c = {.rank = rank, .seg = seg, .offset = offset,
                    .clocal = local, .len = len};
    dsm_sys_on_rtstack(put_nb_body, &c);
    return c.st;
}

dsm_status_t dsm_tp_flush(int rank)
{
    if (!dsm_sys_stack_sharable())
        return tp_flush_here(rank);
    rma_call_t c = {.rank = rank};
    dsm_sys_on_rtstack(flush_body, &c);
    return c.st;
}
