/*
 * tp_rma.c - one-sided get and put on the registered segments of any node,
 * and flush.
 *
 * Layer: transport.  Entry points: dsm_tp_get, dsm_tp_put, dsm_tp_put_nb,
 * dsm_tp_flush (any application thread and the fault handler; not from
 * active-message handlers, which must not block), tp_resolve (also used by
 * tp_atomic.c).
 *
 * The calling node's own segments are copied with memcpy: the memory is
 * ours, and no transport could do better.  So are the segments of peers on
 * this host that tp_direct.c mapped (a get through tp_direct_copy.c, which
 * copies pages new here from file to file).  Everything else goes through
 * ucp_get_nbx / ucp_put_nbx on the peer's endpoint and remote key, and a
 * blocking call polls until completion (tp_wait_request).  A blocking put
 * is followed by an endpoint flush, because a completed put only means the
 * source buffer is free again; the flush means the data is visible at the
 * target.  Memory type HOST is given so UCX does not probe the buffer.
 */
#include <stdatomic.h>
#include <string.h>

#include "base_log.h"
#include "sys_activity.h"
#include "tp_internal.h"

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

dsm_status_t dsm_tp_get(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        void *local, size_t len)
{
    tp_check_not_in_handler("dsm_tp_get");
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

dsm_status_t dsm_tp_put(int rank, dsm_tp_segment_t seg, uint64_t offset,
                        const void *local, size_t len)
{
    tp_check_not_in_handler("dsm_tp_put");
    ucs_status_ptr_t put;
    dsm_status_t st = start_put(rank, seg, offset, local, len, &put);
    if (st != DSM_OK || rank == tp.rank || len == 0)
        return st;
    ucs_status_ptr_t flush = ucp_ep_flush_nbx(tp.peers[rank].ep,
                                              &host_memory);
    st = tp_wait_request(flush, "a put to", rank);
    /* the flush completed, so the put has too */
    dsm_status_t put_st = tp_wait_request(put, "a put to", rank);
    return st != DSM_OK ? st : put_st;
}

dsm_status_t dsm_tp_put_nb(int rank, dsm_tp_segment_t seg, uint64_t offset,
                           const void *local, size_t len)
{
    tp_check_not_in_handler("dsm_tp_put_nb");
    ucs_status_ptr_t put;
    dsm_status_t st = start_put(rank, seg, offset, local, len, &put);
    /* UCX releases the request when it completes; errors surface in the
     * next flush */
    if (put)
        ucp_request_free(put);
    return st;
}

dsm_status_t dsm_tp_flush(int rank)
{
    tp_check_not_in_handler("dsm_tp_flush");
    if (!tp.initialized)
        return DSM_ERR_STATE;
    if (rank != -1) {
        dsm_status_t st = tp_check_rank(rank);
        if (st != DSM_OK)
            return st;
    }
    if (!tp.worker || rank == tp.rank)
        return DSM_OK;   /* own memory is written synchronously */
    ucs_status_ptr_t req =
        rank == -1 ? ucp_worker_flush_nbx(tp.worker, &host_memory)
                   : ucp_ep_flush_nbx(tp.peers[rank].ep, &host_memory);
    return tp_wait_request(req, "a flush of operations to", rank);
}
