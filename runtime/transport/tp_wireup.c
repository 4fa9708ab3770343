/*
 * tp_wireup.c - start-up and shut-down of the transport: the UCX context
 * and worker, registration of the segments, the bootstrap exchange, the
 * endpoints to every node, and the collective shut-down.
 *
 * Layer: transport.  Entry points: dsm_tp_init, dsm_tp_finalize (once
 * each, from one application thread, never from a handler or the fault
 * handler), dsm_tp_rank, dsm_tp_size.
 *
 * One node (DSM_SIZE=1) opens no UCX context at all: active messages to
 * itself, memcpy and CPU atomics need no network.
 *
 * Several nodes: context with AM | RMA | AMO32 | AMO64 | WAKEUP, one worker
 * in UCS_THREAD_MODE_MULTI (application threads, the fault handler and the
 * progress thread all call in).  The worker's lock is a mutex
 * (UCX_USE_MT_MUTEX=y unless the environment sets it): with UCX's default
 * spinlock, a thread preempted inside the worker (its own progress thread
 * woke on the CPU, or another node's) left the other thread of its node
 * spinning on the lock for the rest of a time slice, milliseconds on a
 * machine with no idle CPU; a mutex's waiter sleeps and gives the CPU to
 * the holder.  The segments are registered with
 * UCP_MEM_MAP_NONBLOCK: the region is a large sparse memfd mapping, and
 * registration must neither touch nor pin it (on-demand paging where the
 * hardware has it; shared memory and TCP need no pinning).
 *
 * Error handling mode per endpoint: UCX 1.13's shared-memory transports
 * (sysv, posix) and self have no peer-failure support, so
 * UCP_ERR_HANDLING_MODE_PEER silently moves same-host peers onto TCP
 * loopback (about 20x the latency).  Peers on this host (same kernel boot
 * id) therefore get UCP_ERR_HANDLING_MODE_NONE and rely on the bootstrap
 * sockets, whose end-of-file reports a dead process at once; peers on
 * other hosts get UCP_ERR_HANDLING_MODE_PEER with an error callback that
 * ends the job naming them.  DSM_UCX_ERR_MODE=peer|none|auto (default
 * auto) overrides the choice for every peer but self.
 *
 * Shut-down is collective: complete this node's operations, stop the
 * progress thread, BYE exchange over the bootstrap sockets (from then on an
 * endpoint error is no failure), then close the endpoints (nothing is
 * outstanding any more), release keys, memory, worker and context.
 */
#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_config.h"
#include "base_log.h"
#include "sys_activity.h"
#include "tp_am.h"
#include "tp_counters.h"
#include "tp_direct.h"
#include "tp_lane.h"
#include "tp_liveness.h"
#include "tp_msgq.h"
#include "tp_progress.h"
#include "tp_rendezvous.h"
#include "tp_source.h"
#include "tp_state.h"
#include "tp_status.h"
#include "tp_thread.h"
#include "tp_wire.h"

int dsm_tp_rank(void) { return tp.initialized ? tp.rank : dsm_config()->rank; }
int dsm_tp_size(void) { return tp.initialized ? tp.size : dsm_config()->size; }

/* ---- UCX ---------------------------------------------------------------------- */

static dsm_status_t ucx_fail(const char *what, ucs_status_t st)
{
    dsm_log(DSM_LOG_ERROR, "%s: %s", what, ucs_status_string(st));
    return tp_status(st);
}

static dsm_status_t open_worker(void)
{
    ucp_config_t *config;
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);
    if (st != UCS_OK)
        return ucx_fail("reading the UCX configuration", st);
    /* the worker's lock a mutex, not UCX's default spinlock (header),
     * unless the user chose */
    if (!getenv("UCX_USE_MT_MUTEX")) {
        st = ucp_config_modify(config, "USE_MT_MUTEX", "y");
        if (st != UCS_OK)
            dsm_debug("UCX refused USE_MT_MUTEX=y (%s): the worker's lock "
                      "stays a spinlock", ucs_status_string(st));
    }
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                      UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_AMO32 |
                    UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP,
        .estimated_num_eps = (size_t)tp.size,
        .mt_workers_shared = 0,
    };
    st = ucp_init(&params, config, &tp.context);
    ucp_config_release(config);
    if (st != UCS_OK)
        return ucx_fail("initialising UCX", st);

    ucp_worker_params_t wparams = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_MULTI,
    };
    st = ucp_worker_create(tp.context, &wparams, &tp.worker);
    if (st != UCS_OK)
        return ucx_fail("creating the UCX worker", st);
    ucp_worker_attr_t attr = {.field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE};
    st = ucp_worker_query(tp.worker, &attr);
    if (st != UCS_OK)
        return ucx_fail("querying the UCX worker", st);
    if (attr.thread_mode != UCS_THREAD_MODE_MULTI) {
        dsm_log(DSM_LOG_ERROR, "this UCX library has no multi-thread "
                "support (built without --enable-mt)");
        return DSM_ERR_TRANSPORT;
    }
    st = ucp_worker_get_efd(tp.worker, &tp.worker_efd);
    if (st != UCS_OK)
        return ucx_fail("getting the UCX wake-up descriptor", st);
    return DSM_OK;
}

static dsm_status_t map_segments(void)
{
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
        if (!tp.local.size[s])
            continue;
        ucp_mem_map_params_t mp = {
            .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                          UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                          UCP_MEM_MAP_PARAM_FIELD_FLAGS,
            .address = tp.local.base[s],
            .length = tp.local.size[s],
            .flags = UCP_MEM_MAP_NONBLOCK,
        };
        ucs_status_t st = ucp_mem_map(tp.context, &mp, &tp.memh[s]);
        if (st != UCS_OK) {
            dsm_log(DSM_LOG_ERROR, "registering segment %d (%zu bytes at "
                    "%p): %s", s, tp.local.size[s], tp.local.base[s],
                    ucs_status_string(st));
            return tp_status(st);
        }
    }
    return DSM_OK;
}

/* 16 bytes naming this kernel instance: the boot id, which processes in
 * different network namespaces of one machine share. */
static void host_identity(unsigned char id[TP_WIRE_HOST_ID_LEN])
{
    memset(id, 0, TP_WIRE_HOST_ID_LEN);
    char text[64] = "";
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, text, sizeof text - 1);
        text[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    unsigned nibbles = 0;
    for (const char *p = text; *p && nibbles < 2 * TP_WIRE_HOST_ID_LEN; p++) {
        if (!isxdigit((unsigned char)*p))
            continue;
        unsigned v = (unsigned)(isdigit((unsigned char)*p)
                                    ? *p - '0'
                                    : tolower((unsigned char)*p) - 'a' + 10);
        id[nibbles / 2] = (unsigned char)(id[nibbles / 2] << 4 | v);
        nibbles++;
    }
    if (nibbles == 0)
        gethostname((char *)id, TP_WIRE_HOST_ID_LEN);
}

static void endpoint_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    (void)ep;
    int rank = (int)(intptr_t)arg;
    if (atomic_load(&tp.finalizing)) {
        dsm_debug("endpoint to node %d closed during shut-down: %s", rank,
                  ucs_status_string(status));
        return;
    }
    tp_live_peer_failed(rank, ucs_status_string(status));
}

static dsm_status_t connect_peers(const tp_record_t *table,
                                  const tp_record_t *mine)
{
    const unsigned char *my_host = mine->host_id;
    dsm_ucx_err_mode_t mode = dsm_config()->ucx_err_mode;
    for (int r = 0; r < tp.size; r++) {
        tp_peer_t *p = &tp.peers[r];
        int watched = r != tp.rank &&
                      (mode == DSM_UCX_ERR_PEER ||
                       (mode == DSM_UCX_ERR_AUTO &&
                        memcmp(table[r].host_id, my_host,
                               TP_WIRE_HOST_ID_LEN) != 0));
        ucp_ep_params_t ep = {
            .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                          UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
            .address = table[r].addr,
            .err_mode = watched ? UCP_ERR_HANDLING_MODE_PEER
                                : UCP_ERR_HANDLING_MODE_NONE,
        };
        if (watched) {
            ep.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLER;
            ep.err_handler.cb = endpoint_failed;
            ep.err_handler.arg = (void *)(intptr_t)r;
        }
        p->ep_watched = watched;
        ucs_status_t st = ucp_ep_create(tp.worker, &ep, &p->ep);
        if (st != UCS_OK) {
            dsm_log(DSM_LOG_ERROR, "connecting to node %d: %s", r,
                    ucs_status_string(st));
            return tp_status(st);
        }
        for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
            p->seg_base[s] = table[r].seg_base[s];
            p->seg_size[s] = table[r].seg_size[s];
            if (!table[r].rkey_len[s])
                continue;
            st = ucp_ep_rkey_unpack(p->ep, table[r].rkey[s], &p->rkey[s]);
            if (st != UCS_OK) {
                dsm_log(DSM_LOG_ERROR, "remote key of segment %d of node "
                        "%d: %s", s, r, ucs_status_string(st));
                return tp_status(st);
            }
        }
        tp_direct_map(r, &table[r], mine);
        tp_lane_connect(r, &table[r], mine);
        dsm_debug("endpoint to node %d: error mode %s", r,
                  watched ? "peer" : "none");
        if (dsm_log_level() >= DSM_LOG_DEBUG && r != tp.rank)
            ucp_ep_print_info(p->ep, stderr);   /* the lanes UCX chose */
    }
    return DSM_OK;
}

/* A one-host job where every node offered seg: all map it and use the
 * CPU's atomics on it.  Decided from the table alone, so every node
 * decides alike; a mapping that failed then would mix atomic paths on
 * one word, so it ends the job instead. */
static dsm_status_t choose_cpu_atomics(const tp_record_t *table,
                                       const tp_record_t *mine)
{
    int one_host = dsm_config()->same_host_map;
    for (int r = 0; r < tp.size && one_host; r++)
        one_host = tp_same_host(&table[r], mine);
    tp.ucx_quiet = one_host;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
        int all = one_host && tp.local.size[s] != 0;
        for (int r = 0; r < tp.size && all; r++)
            all = table[r].map_fd[s] != TP_WIRE_NO_FD;
        tp.cpu_atomics[s] = all;
        for (int r = 0; r < tp.size && all; r++)
            if (r != tp.rank && !tp.peers[r].direct[s]) {
                dsm_log(DSM_LOG_ERROR, "node %d could not map segment %d "
                        "of node %d on this host (see DSM_LOG_LEVEL=debug); "
                        "DSM_SAME_HOST_MAP=0 takes every access through "
                        "UCX", tp.rank, s, r);
                return DSM_ERR_TRANSPORT;
            }
        if (tp.local.size[s] && !all)
            tp.ucx_quiet = 0;
    }
    for (int r = 0; r < tp.size && tp.ucx_quiet; r++)
        tp.ucx_quiet = r == tp.rank || tp_lane_reaches(r);
    tp.ucx_same_host = tp.remote_peers = 0;
    for (int r = 0; r < tp.size; r++)
        if (r != tp.rank && tp_same_host(&table[r], mine) &&
            !tp_lane_reaches(r))
            tp.ucx_same_host = 1;
        else if (r != tp.rank && !tp_same_host(&table[r], mine))
            tp.remote_peers = 1;
    tp.ucx_peers = tp.remote_peers || tp.ucx_same_host;
    dsm_debug("atomics: %s; UCX %s", tp.cpu_atomics[DSM_TP_SEG_REGION]
                                         ? "the CPU's on mapped segments"
                                         : "through UCX",
              tp.ucx_quiet ? "unused (lanes and mappings)" : "in use");
    return DSM_OK;
}

/* The job's threads on this host against the CPUs this process may use:
 * more threads than CPUs, and waits always yield early (tp_progress.c).
 * Nodes in other network namespaces of this kernel share its CPUs too. */
static void choose_yield(const tp_record_t *table, const tp_record_t *mine)
{
    int here = 0;
    for (int r = 0; r < tp.size; r++)
        here += memcmp(table[r].host_id, mine->host_id,
                       TP_WIRE_HOST_ID_LEN) == 0;
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                           : 1;
    long threads = (long)here * (dsm_config()->threads > 0
                                     ? dsm_config()->threads : 1);
    tp.oversubscribed = threads > cpus;
    dsm_debug("%ld application threads of the job on %d CPUs here: waits "
              "yield %s", threads, cpus,
              tp.oversubscribed ? "early" : "early only beside a peer");
}

#define UCX_QUIET_EVERY 256u      /* rounds between looks at a quiet worker */

static int poll_worker(void)
{
    /* a quiet worker has nothing to do: look now and then all the same */
    static TP_THREAD_LOCAL unsigned rounds;
    if (tp.ucx_quiet && ++rounds % UCX_QUIET_EVERY != 0)
        return 0;
    return (int)ucp_worker_progress(tp.worker);
}

static const tp_source_t worker_source = {
    .name = "UCX worker",
    .poll = poll_worker,
    .flags = TP_SOURCE_WORKER | TP_SOURCE_INBOUND};

/* What a progress round polls, in order (tp_source.h): what arrives (the
 * worker, the lanes) runs handlers, whose self-sends and deferred sends
 * then go in the same round.  Before anything progresses. */
static void add_sources(void)
{
    tp_sources_add(&worker_source);
    tp_sources_add(&tp_lane_source);
    tp_sources_add(&tp_am_local_source);
    tp_sources_add(&tp_am_deferred_source);
    tp_sources_add(&tp_live_source);   /* hooks only: polls nothing */
}

/* Register, exchange records with every node, connect. */
static dsm_status_t wire_up(void)
{
    dsm_status_t status = open_worker();
    if (status != DSM_OK)
        return status;
    if ((status = tp_am_open()) != DSM_OK ||
        (status = map_segments()) != DSM_OK ||
        (status = tp_lane_open(tp_am_dispatch)) != DSM_OK)
        return status;
    add_sources();

    tp_record_t mine = {0};
    void *rkey_buf[DSM_TP_SEG_COUNT] = {0};
    ucp_address_t *address = NULL;
    void *storage = NULL;
    tp_record_t *table = calloc((size_t)tp.size, sizeof *table);
    int *socks = malloc((size_t)tp.size * sizeof *socks);
    status = DSM_ERR_NOMEM;
    if (!table || !socks)
        goto out;
    for (int r = 0; r < tp.size; r++)
        socks[r] = -1;

    host_identity(mine.host_id);
    tp_direct_identity(&mine);
    tp_lane_identity(&mine);
    size_t addr_len;
    ucs_status_t st = ucp_worker_get_address(tp.worker, &address, &addr_len);
    if (st != UCS_OK) {
        status = ucx_fail("getting the UCX worker address", st);
        goto out;
    }
    mine.addr = address;
    mine.addr_len = addr_len;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
        mine.seg_base[s] = (uint64_t)(uintptr_t)tp.local.base[s];
        mine.seg_size[s] = tp.local.size[s];
        if (!tp.memh[s])
            continue;
        st = ucp_rkey_pack(tp.context, tp.memh[s], &rkey_buf[s],
                           &mine.rkey_len[s]);
        if (st != UCS_OK) {
            status = ucx_fail("packing a remote key", st);
            goto out;
        }
        mine.rkey[s] = rkey_buf[s];
    }
    if (addr_len > TP_WIRE_BLOB_MAX || mine.rkey_len[0] > TP_WIRE_BLOB_MAX ||
        mine.rkey_len[1] > TP_WIRE_BLOB_MAX) {
        dsm_log(DSM_LOG_ERROR, "UCX address or remote key too large");
        status = DSM_ERR_TRANSPORT;
        goto out;
    }

    status = tp_rendezvous(&mine, table, socks, &storage);
    if (status != DSM_OK)
        goto out;
    for (int r = 0; r < tp.size; r++) {
        tp.peers[r].sock = socks[r];
        socks[r] = -1;
    }
    status = connect_peers(table, &mine);
    if (status == DSM_OK)
        status = choose_cpu_atomics(table, &mine);
    if (status == DSM_OK)
        choose_yield(table, &mine);
out:
    if (socks)
        for (int r = 0; r < tp.size; r++)
            if (socks[r] >= 0)
                close(socks[r]);
    free(socks);
    free(table);
    free(storage);
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++)
        if (rkey_buf[s])
            ucp_rkey_buffer_release(rkey_buf[s]);
    if (address)
        ucp_worker_release_address(tp.worker, address);
    return status;
}

/* ---- tear-down ------------------------------------------------------------------ */

static void close_endpoints(void)
{
    for (int r = 0; tp.peers && r < tp.size; r++) {
        tp_peer_t *p = &tp.peers[r];
        for (int s = 0; s < DSM_TP_SEG_COUNT; s++)
            if (p->rkey[s]) {
                ucp_rkey_destroy(p->rkey[s]);
                p->rkey[s] = NULL;
            }
        if (!p->ep)
            continue;
        /* UCX allows FORCE only in peer error mode; the others are flushed,
         * which completes at once: nothing is outstanding any more */
        ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                   .flags = p->ep_watched
                                                ? UCP_EP_CLOSE_FLAG_FORCE
                                                : 0};
        ucs_status_ptr_t req = ucp_ep_close_nbx(p->ep, &prm);
        tp_wait_request(req, "closing the endpoint to", r);
        p->ep = NULL;
    }
}

static void release_all(void)
{
    tp_direct_unmap();
    tp_lane_close();
    close_endpoints();
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++)
        if (tp.memh[s]) {
            ucp_mem_unmap(tp.context, tp.memh[s]);
            tp.memh[s] = NULL;
        }
    if (tp.worker)
        ucp_worker_destroy(tp.worker);
    if (tp.context)
        ucp_cleanup(tp.context);
    tp.worker = NULL;
    tp.context = NULL;
    tp.worker_efd = -1;
    /* after the last progress call: closing endpoints progresses */
    tp_sources_clear();
    tp_am_close();
    tp_msg_pool_destroy();
    for (int r = 0; tp.peers && r < tp.size; r++)
        if (tp.peers[r].sock >= 0)
            close(tp.peers[r].sock);
    free(tp.peers);
    free(tp.pollfds);
    free(tp.poll_peer);
    free(tp.check_fds);
    free(tp.check_peer);
    tp.peers = NULL;
    tp.pollfds = tp.check_fds = NULL;
    tp.poll_peer = tp.check_peer = NULL;
    if (tp.wake_fd >= 0)
        close(tp.wake_fd);
    if (tp.wake_wr >= 0)
        close(tp.wake_wr);
    tp.wake_fd = tp.wake_wr = -1;
    memset(tp.cpu_atomics, 0, sizeof tp.cpu_atomics);
    tp.ucx_quiet = 0;
    tp.ucx_same_host = 0;
    tp.oversubscribed = 0;
}

/* ---- entry points --------------------------------------------------------------- */

static dsm_status_t check_segments(const dsm_tp_segments_t *segments)
{
    if (!segments)
        return DSM_ERR_INVALID;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++)
        if (segments->size[s] &&
            (!segments->base[s] ||
             (uintptr_t)segments->base[s] + segments->size[s] <
                 (uintptr_t)segments->base[s]))
            return DSM_ERR_INVALID;
    return DSM_OK;
}

dsm_status_t dsm_tp_init(const dsm_tp_segments_t *segments)
{
    if (tp.initialized)
        return DSM_ERR_STATE;
    dsm_status_t status = check_segments(segments);
    if (status != DSM_OK)
        return status;
    const dsm_config_t *cfg = dsm_config();
    if (cfg->size > 1 && tp.used_network) {
        dsm_log(DSM_LOG_ERROR, "a multi-node job wires up once per process");
        return DSM_ERR_STATE;
    }
    dsm_activity_attach(cfg->rank);
    dsm_activity_starting();
    tp.rank = cfg->rank;
    tp.size = cfg->size > 0 ? cfg->size : 1;
    tp.timeout_ms = cfg->timeout_ms ? cfg->timeout_ms
                                    : DSM_DEFAULT_TIMEOUT_S * 1000u;
    tp.local = *segments;
    tp.go = tp.bye_ack = 0;
    atomic_store(&tp.finalizing, 0);
    atomic_store(&tp.pollers, 0);
    tp_counters_reset();

    status = DSM_ERR_NOMEM;
    tp.peers = calloc((size_t)tp.size, sizeof *tp.peers);
    tp.pollfds = calloc((size_t)tp.size + 2, sizeof *tp.pollfds);
    tp.poll_peer = calloc((size_t)tp.size + 2, sizeof *tp.poll_peer);
    tp.check_fds = calloc((size_t)tp.size, sizeof *tp.check_fds);
    tp.check_peer = calloc((size_t)tp.size, sizeof *tp.check_peer);
    if (!tp.peers || !tp.pollfds || !tp.poll_peer || !tp.check_fds ||
        !tp.check_peer)
        goto fail;
    for (int r = 0; r < tp.size; r++)
        tp.peers[r].sock = -1;
    int wake[2];
    if (pipe2(wake, O_NONBLOCK | O_CLOEXEC) != 0) {
        status = DSM_ERR_IO;
        goto fail;
    }
    tp.wake_fd = wake[0];
    tp.wake_wr = wake[1];
    if ((status = tp_msg_pool_init()) != DSM_OK)
        goto fail;

    if (tp.size == 1) {
        for (int s = 0; s < DSM_TP_SEG_COUNT; s++) {
            tp.peers[0].seg_base[s] = (uint64_t)(uintptr_t)tp.local.base[s];
            tp.peers[0].seg_size[s] = tp.local.size[s];
        }
        if ((status = tp_am_open()) != DSM_OK)
            goto fail;
        add_sources();
    } else {
        tp.used_network = 1;
        if ((status = wire_up()) != DSM_OK)
            goto fail;
        tp.initialized = 1;   /* the barrier may already run handlers */
        if ((status = tp_live_barrier()) != DSM_OK)
            goto fail;
    }
    tp.initialized = 1;
    if (cfg->progress_thread && (status = tp_thread_start()) != DSM_OK)
        goto fail;
    dsm_debug("transport up: node %d of %d", tp.rank, tp.size);
    dsm_activity_computing();
    return DSM_OK;
fail:
    tp.initialized = 0;
    release_all();
    return status;
}

dsm_status_t dsm_tp_finalize(void)
{
    if (!tp.initialized)
        return DSM_ERR_STATE;
    tp_check_not_in_handler("dsm_tp_finalize");
    dsm_activity_finishing();
    /* complete what this node started: queued self-sends and handler
     * sends, then every UCX operation, remote completion included */
    while (tp_progress_once())
        ;
    if (tp.worker) {
        ucp_request_param_t prm = {.op_attr_mask = 0};
        tp_wait_request(ucp_worker_flush_nbx(tp.worker, &prm),
                        "the final flush of operations", -1);
    }
    tp_thread_stop();
    if (tp.size > 1)
        tp_live_goodbye();
    atomic_store(&tp.finalizing, 1);
    tp.initialized = 0;
    release_all();
    return DSM_OK;
}
