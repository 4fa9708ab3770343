/*
 * tp_am.c - active messages: the handler registry, sends, and delivery.
 *
 * Layer: transport.  Entry points: dsm_tp_am_register (before dsm_tp_init),
 * dsm_tp_am_send / dsm_tp_am_sendv and their _lazy forms (any thread,
 * handlers and the fault handler included), tp_am_open / tp_am_close (init and finalize),
 * and two progress sources (tp_source.h): self-sends, deferred sends.
 *
 * Wire format: the UCX AM id is ours; a 4-byte UCX header carries the
 * sender's rank; the payload is the data.  Every send forces the eager
 * protocol (UCP_AM_SEND_FLAG_EAGER): a rendezvous message would be
 * delivered when its data arrives, possibly after a later small message,
 * while eager fragments travel in send order on the endpoint's one AM lane
 * and UCX assembles them before the handler runs, so delivery order per
 * pair of nodes equals send order for all sizes.  A rendezvous arrival is
 * therefore a protocol error.
 *
 * Handlers run one at a time (handler_lock): UCX already serialises its
 * callbacks under the worker lock, and self-sends are delivered under the
 * same lock so that they do not run beside them.  A send from a handler
 * cannot wait (UCX forbids progress from its callbacks, and a blocking
 * send would need it): it is copied and queued, and the queue is issued
 * in FIFO order once the progress call returns.  One shortcut: a handler
 * called by UCX (so this thread holds the worker lock) sending a
 * contiguous message while nothing is queued asks UCX to send it at once
 * or not at all (UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL: the short protocol,
 * small messages), which keeps replies to small requests as fast as a
 * send from the application.  Handlers run for self-sends never call UCX:
 * they hold handler_lock without the worker lock, and taking the worker
 * lock there would invert the order UCX callbacks take them in.
 * Self-sends never touch UCX either: UCX's self transport would run the
 * handler inside the send, in the sender's context; ours are copied and
 * run by the next progress call, as transport.h promises.
 *
 * Same-host peers whose lane file this node mapped get every message
 * through the lane instead of UCX (tp_lane.c); handlers run for lane
 * records hold handler_lock without the worker lock, like self-sends, so
 * their sends to UCX peers are queued too.
 *
 * Blocking sends from the fault handler: the direct path allocates nothing
 * (the UCX header and the iov live on the stack) and waits by polling;
 * copies use tp_msgq.c buffers, never malloc.
 */
#include <string.h>

#include "base_log.h"
#include "sys_region.h"
#include "sys_stack.h"
#include "tp_am.h"
#include "tp_counters.h"
#include "tp_lane.h"
#include "tp_msgq.h"
#include "tp_progress.h"
#include "tp_source.h"
#include "tp_state.h"
#include "tp_status.h"

typedef struct am_entry {
    dsm_tp_am_handler_t handler;
    void *arg;
} am_entry_t;

static am_entry_t handlers[DSM_TP_AM_MAX_ID];
static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t issue_lock = PTHREAD_MUTEX_INITIALIZER;
static tp_msgq_t local_q, deferred_q;
static atomic_int local_count, deferred_count;
/* The UCX header of every message: our rank.  Static, so it outlives the
 * non-blocking sends that point at it. */
static uint32_t am_src_header;

/* Non-zero during a dsm_tp_am_send_lazy: a lane does not ring a sleeping
 * receiver. */
static TP_THREAD_LOCAL int tp_send_lazy;
/* Non-zero while this thread runs a handler called back by UCX. */
static TP_THREAD_LOCAL int in_ucx_callback;

static void issue_deferred(void);

static unsigned lane_lazy(void) { return tp_send_lazy ? TP_LANE_LAZY : 0; }

/* The ids each range of transport.h owns, first and last. */
static const unsigned am_range[DSM_TP_AM_RANGES][2] = {
    [DSM_TP_AM_COHERENCE] = {DSM_TP_AM_COH_FIRST, DSM_TP_AM_COH_LAST},
    [DSM_TP_AM_FORKJOIN]  = {DSM_TP_AM_FJ_FIRST, DSM_TP_AM_FJ_LAST},
    [DSM_TP_AM_CLIENT]    = {DSM_TP_AM_CLIENT_FIRST, DSM_TP_AM_CLIENT_LAST},
};
static const char *const am_range_name[DSM_TP_AM_RANGES] = {
    "coherence", "fork-join", "client",
};

dsm_status_t dsm_tp_am_register(dsm_tp_am_range_t range, unsigned id,
                                dsm_tp_am_handler_t handler, void *arg)
{
    if ((unsigned)range >= DSM_TP_AM_RANGES || !handler) {
        dsm_log(DSM_LOG_ERROR, "active message %u: bad registration", id);
        return DSM_ERR_INVALID;
    }
    if (id < am_range[range][0] || id > am_range[range][1]) {
        dsm_log(DSM_LOG_ERROR,
                "active message %u is outside the %s range %u..%u", id,
                am_range_name[range], am_range[range][0], am_range[range][1]);
        return DSM_ERR_INVALID;
    }
    if (tp.initialized)
        return DSM_ERR_STATE;
    if (handlers[id].handler &&
        (handlers[id].handler != handler || handlers[id].arg != arg)) {
        dsm_log(DSM_LOG_ERROR,
                "active message %u already has a handler: refused", id);
        return DSM_ERR_BUSY;
    }
    handlers[id].handler = handler;
    handlers[id].arg = arg;
    return DSM_OK;
}

/* Handlers never run on a sharable stack: a push onto a page a release
 * has write-protected would fault with handler_lock held (design.md,
 * "Locks and their order").  The transport's entry points leave such a
 * stack first (sys_stack.h). */
#define CHECK_HANDLER_STACK()                                                 \
    DSM_INVARIANT(!dsm_sys_stack_sharable(),                                  \
                  "an active-message handler on a sharable stack")

static void run_handler(int src, unsigned id, const void *data, size_t len)
{
    CHECK_HANDLER_STACK();
    pthread_mutex_lock(&handler_lock);
    tp_in_handler++;
    handlers[id].handler(src, data, len, handlers[id].arg);
    tp_in_handler--;
    pthread_mutex_unlock(&handler_lock);
}

void tp_am_dispatch(int src, unsigned id, const void *data, size_t len)
{
    if (id >= DSM_TP_AM_MAX_ID || !handlers[id].handler)
        dsm_fatal("active message %u from node %d has no handler", id, src);
    run_handler(src, id, data, len);
}

static ucs_status_t am_arrived(void *arg, const void *header,
                               size_t header_length, void *data,
                               size_t length, const ucp_am_recv_param_t *param)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    uint32_t src;
    if (header_length != sizeof src ||
        (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
        dsm_fatal("malformed active message %u (%zu-byte header%s)", id,
                  header_length,
                  param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV
                      ? ", rendezvous" : "");
    memcpy(&src, header, sizeof src);
    if (src >= (uint32_t)tp.size)
        dsm_fatal("active message %u from unknown node %u", id, src);
    in_ucx_callback++;
    run_handler((int)src, id, data, length);
    in_ucx_callback--;
    return UCS_OK;
}

dsm_status_t tp_am_open(void)
{
    am_src_header = (uint32_t)tp.rank;
    tp_msgq_init(&local_q);
    tp_msgq_init(&deferred_q);
    atomic_store(&local_count, 0);
    atomic_store(&deferred_count, 0);
    if (!tp.worker)
        return DSM_OK;
    for (unsigned id = 0; id < DSM_TP_AM_MAX_ID; id++) {
        if (!handlers[id].handler)
            continue;
        ucp_am_handler_param_t prm = {
            .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                          UCP_AM_HANDLER_PARAM_FIELD_CB |
                          UCP_AM_HANDLER_PARAM_FIELD_ARG |
                          UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
            .id = id,
            .cb = am_arrived,
            .arg = (void *)(uintptr_t)id,
            .flags = UCP_AM_FLAG_WHOLE_MSG,
        };
        ucs_status_t st = ucp_worker_set_am_recv_handler(tp.worker, &prm);
        if (st != UCS_OK) {
            dsm_log(DSM_LOG_ERROR, "registering active message %u: %s", id,
                    ucs_status_string(st));
            return tp_status(st);
        }
    }
    return DSM_OK;
}

void tp_am_close(void)
{
    tp_msg_t *m;
    while ((m = tp_msgq_pop(&local_q)))
        tp_msg_free(m);
    while ((m = tp_msgq_pop(&deferred_q)))
        tp_msg_free(m);
    atomic_store(&local_count, 0);
    atomic_store(&deferred_count, 0);
}

/* ---- sending ---------------------------------------------------------------- */

static dsm_status_t queue_copy(int dst, unsigned id, const void *hdr,
                               size_t hdr_len, const void *body,
                               size_t body_len)
{
    tp_msg_t *m = tp_msg_alloc(hdr_len + body_len);
    if (!m)
        return DSM_ERR_NOMEM;
    if (hdr_len)
        memcpy(m->data, hdr, hdr_len);
    if (body_len)
        memcpy(m->data + hdr_len, body, body_len);
    m->id = id;
    if (dst == tp.rank) {
        m->peer = tp.rank;
        atomic_fetch_add(&local_count, 1);
        if (tp_msgq_push(&local_q, m))
            tp_wake_thread();
    } else {
        m->peer = dst;
        atomic_fetch_add(&deferred_count, 1);
        tp_msgq_push(&deferred_q, m);
    }
    return DSM_OK;
}

static dsm_status_t send_now(int dst, unsigned id, const void *hdr,
                             size_t hdr_len, const void *body,
                             size_t body_len)
{
    ucp_request_param_t prm = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_DATATYPE |
                        UCP_OP_ATTR_FIELD_MEMORY_TYPE,
        .flags = UCP_AM_SEND_FLAG_EAGER,
        .memory_type = UCS_MEMORY_TYPE_HOST,
    };
    ucp_dt_iov_t iov[2];
    const void *buffer;
    size_t count;
    if (hdr_len && body_len) {
        iov[0] = (ucp_dt_iov_t){.buffer = (void *)hdr, .length = hdr_len};
        iov[1] = (ucp_dt_iov_t){.buffer = (void *)body, .length = body_len};
        prm.datatype = UCP_DATATYPE_IOV;
        buffer = iov;
        count = 2;
    } else {
        prm.datatype = ucp_dt_make_contig(1);
        buffer = hdr_len ? hdr : body;
        count = hdr_len + body_len;
    }
    ucs_status_ptr_t req = ucp_am_send_nbx(tp.peers[dst].ep, id,
                                           &am_src_header,
                                           sizeof am_src_header, buffer,
                                           count, &prm);
    return tp_wait_request(req, "an active-message send to", dst);
}

/* From a handler called by UCX: send a small message at once if UCX can
 * and nothing queued must go first, else queue a copy. */
static dsm_status_t send_from_callback(int dst, unsigned id, const void *hdr,
                                       size_t hdr_len, const void *body,
                                       size_t body_len)
{
    if ((hdr_len && body_len) ||
        atomic_load(&deferred_count) != 0 ||
        pthread_mutex_trylock(&issue_lock) != 0)
        return queue_copy(dst, id, hdr, hdr_len, body, body_len);
    /* holding the issue lock: no issuer is between popping and sending */
    dsm_status_t st = DSM_ERR_BUSY;
    if (atomic_load(&deferred_count) == 0) {
        ucp_request_param_t prm = {
            .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS |
                            UCP_OP_ATTR_FIELD_DATATYPE |
                            UCP_OP_ATTR_FIELD_MEMORY_TYPE |
                            UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL,
            .flags = UCP_AM_SEND_FLAG_EAGER,
            .datatype = ucp_dt_make_contig(1),
            .memory_type = UCS_MEMORY_TYPE_HOST,
        };
        ucs_status_ptr_t req = ucp_am_send_nbx(tp.peers[dst].ep, id,
                                               &am_src_header,
                                               sizeof am_src_header,
                                               hdr_len ? hdr : body,
                                               hdr_len + body_len, &prm);
        if (req == NULL)
            st = DSM_OK;
        else if (!UCS_PTR_IS_ERR(req))
            dsm_fatal("UCX kept an active message it was told to send at "
                      "once or not at all");
        else if (UCS_PTR_STATUS(req) != UCS_ERR_NO_RESOURCE)
            st = tp_status(UCS_PTR_STATUS(req));
    }
    if (st == DSM_ERR_BUSY)
        st = queue_copy(dst, id, hdr, hdr_len, body, body_len);
    pthread_mutex_unlock(&issue_lock);
    return st;
}

/* A same-host peer on a lane (tp_lane.c).  A handler only tries (it must
 * not wait), and only when nothing queued must go first (the issue lock
 * also covers a message an issuer has taken off the queue but not yet
 * sent); what it cannot send now is queued.  Anyone else sends what is
 * queued first, then waits for room if need be. */
static dsm_status_t send_on_lane(int dst, unsigned id, const void *hdr,
                                 size_t hdr_len, const void *body,
                                 size_t body_len)
{
    if (!tp_in_handler) {
        if (atomic_load(&deferred_count) != 0)
            issue_deferred();
        return tp_lane_send(dst, id, hdr, hdr_len, body, body_len,
                            TP_LANE_MAY_WAIT | lane_lazy());
    }
    if (atomic_load(&deferred_count) != 0 ||
        pthread_mutex_trylock(&issue_lock) != 0)
        return queue_copy(dst, id, hdr, hdr_len, body, body_len);
    dsm_status_t st = DSM_ERR_BUSY;
    if (atomic_load(&deferred_count) == 0)
        st = tp_lane_send(dst, id, hdr, hdr_len, body, body_len,
                          lane_lazy());
    if (st == DSM_ERR_BUSY)
        st = queue_copy(dst, id, hdr, hdr_len, body, body_len);
    pthread_mutex_unlock(&issue_lock);
    return st;
}

static dsm_status_t am_sendv(int dst, unsigned id, const void *hdr,
                             size_t hdr_len, const void *body,
                             size_t body_len)
{
    /* a sharable page may be write-protected or invalid: a copy from it
     * would fault with a ring's or UCX's lock held */
    DSM_INVARIANT(!(hdr_len && dsm_sys_sharable(hdr, hdr_len)) &&
                  !(body_len && dsm_sys_sharable(body, body_len)),
                  "a message's payload in sharable memory");
    if (!tp.initialized)
        return DSM_ERR_STATE;
    if (id >= DSM_TP_AM_MAX_ID || !handlers[id].handler ||
        (hdr_len && !hdr) || (body_len && !body))
        return DSM_ERR_INVALID;
    dsm_status_t st = tp_check_rank(dst);
    if (st != DSM_OK)
        return st;
    if (dst != tp.rank && tp_lane_reaches(dst))
        st = send_on_lane(dst, id, hdr, hdr_len, body, body_len);
    else if (dst == tp.rank || (tp_in_handler && !in_ucx_callback))
        st = queue_copy(dst, id, hdr, hdr_len, body, body_len);
    else if (tp_in_handler)
        st = send_from_callback(dst, id, hdr, hdr_len, body, body_len);
    else
        st = send_now(dst, id, hdr, hdr_len, body, body_len);
    if (st == DSM_OK)
        tp_count_am(id, hdr_len + body_len);
    return st;
}

typedef struct sendv_call {
    int dst;
    unsigned id;
    const void *hdr, *body;
    size_t hdr_len, body_len;
    dsm_status_t st;
} sendv_call_t;

static void sendv_body(void *p)
{
    sendv_call_t *c = p;
    c->st = am_sendv(c->dst, c->id, c->hdr, c->hdr_len, c->body,
                     c->body_len);
}

dsm_status_t dsm_tp_am_sendv(int dst, unsigned id, const void *hdr,
                             size_t hdr_len, const void *body,
                             size_t body_len)
{
    if (!dsm_sys_stack_sharable())
        return am_sendv(dst, id, hdr, hdr_len, body, body_len);
    /* a send may wait for room, progressing: off the sharable stack */
    sendv_call_t c = {dst, id, hdr, body, hdr_len, body_len, DSM_OK};
    dsm_sys_on_rtstack(sendv_body, &c);
    return c.st;
}

dsm_status_t dsm_tp_am_send(int dst, unsigned id, const void *payload,
                            size_t len)
{
    return dsm_tp_am_sendv(dst, id, payload, len, NULL, 0);
}

dsm_status_t dsm_tp_am_sendv_lazy(int dst, unsigned id, const void *hdr,
                                  size_t hdr_len, const void *body,
                                  size_t body_len)
{
    tp_send_lazy = 1;
    dsm_status_t st = dsm_tp_am_sendv(dst, id, hdr, hdr_len, body, body_len);
    tp_send_lazy = 0;
    return st;
}

dsm_status_t dsm_tp_am_send_lazy(int dst, unsigned id, const void *payload,
                                 size_t len)
{
    return dsm_tp_am_sendv_lazy(dst, id, payload, len, NULL, 0);
}

/* ---- progress-side work ------------------------------------------------------ */

static int deliver_local(void)
{
    int due = atomic_load_explicit(&local_count, memory_order_acquire);
    if (due == 0)
        return 0;
    /* Pop and run under the handler lock, so self-sends run in FIFO order
     * whichever thread delivers them; at most the messages already queued,
     * so a handler that sends to itself cannot keep this call busy. */
    int ran = 0;
    CHECK_HANDLER_STACK();
    pthread_mutex_lock(&handler_lock);
    tp_msg_t *m;
    while (ran < due && (m = tp_msgq_pop(&local_q))) {
        atomic_fetch_sub(&local_count, 1);
        tp_in_handler++;
        handlers[m->id].handler(m->peer, m->data, m->len,
                                handlers[m->id].arg);
        tp_in_handler--;
        tp_msg_free(m);
        ran++;
    }
    pthread_mutex_unlock(&handler_lock);
    return ran;
}

static void deferred_sent(void *request, ucs_status_t status, void *user_data)
{
    tp_msg_t *m = user_data;
    int dst = m->peer;
    unsigned id = m->id;
    tp_msg_free(m);
    ucp_request_free(request);
    if (status != UCS_OK && !atomic_load(&tp.finalizing))
        dsm_fatal("active message %u to node %d failed: %s", id, dst,
                  ucs_status_string(status));
}

static void issue_deferred(void)
{
    /* One issuer at a time keeps the queue's order on the wire. */
    pthread_mutex_lock(&issue_lock);
    tp_msg_t *m;
    while ((m = tp_msgq_pop(&deferred_q))) {
        atomic_fetch_sub(&deferred_count, 1);
        if (tp_lane_reaches(m->peer)) {
            /* not a handler: it may wait for room */
            dsm_status_t st = tp_lane_send(m->peer, m->id, m->data, m->len,
                                           NULL, 0,
                                           TP_LANE_MAY_WAIT | lane_lazy());
            if (st != DSM_OK)
                dsm_fatal("active message %u to node %d failed: %s", m->id,
                          m->peer, dsm_status_string(st));
            tp_msg_free(m);
            continue;
        }
        ucp_request_param_t prm = {
            .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                            UCP_OP_ATTR_FIELD_USER_DATA |
                            UCP_OP_ATTR_FIELD_FLAGS |
                            UCP_OP_ATTR_FIELD_DATATYPE |
                            UCP_OP_ATTR_FIELD_MEMORY_TYPE,
            .cb.send = deferred_sent,
            .user_data = m,
            .flags = UCP_AM_SEND_FLAG_EAGER,
            .datatype = ucp_dt_make_contig(1),
            .memory_type = UCS_MEMORY_TYPE_HOST,
        };
        ucs_status_ptr_t req = ucp_am_send_nbx(tp.peers[m->peer].ep, m->id,
                                               &am_src_header,
                                               sizeof am_src_header, m->data,
                                               m->len, &prm);
        if (req == NULL) {
            tp_msg_free(m);
        } else if (UCS_PTR_IS_ERR(req)) {
            if (!atomic_load(&tp.finalizing))
                dsm_fatal("active message %u to node %d failed: %s", m->id,
                          m->peer, ucs_status_string(UCS_PTR_STATUS(req)));
            tp_msg_free(m);
        }
        /* else deferred_sent releases it */
    }
    pthread_mutex_unlock(&issue_lock);
}

/* A round's looks, after the worker and the lanes (their handlers queue
 * what these two run): self-sends, then what handlers could not send. */
static int poll_deferred(void)
{
    if (atomic_load_explicit(&deferred_count, memory_order_relaxed) != 0)
        issue_deferred();
    return 0;   /* sends handle nothing of this node's */
}

const tp_source_t tp_am_local_source = {.name = "self-sends",
                                        .poll = deliver_local};
const tp_source_t tp_am_deferred_source = {.name = "deferred sends",
                                           .poll = poll_deferred};
