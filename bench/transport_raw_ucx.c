/*
 * transport_raw_ucx.c - the floor under transport_bench: the same three
 * operations written directly against UCP, on the same kind of memory
 * (a MAP_SHARED memfd registered with ucp_mem_map, not memory UCX
 * allocated), with a single-threaded worker, no wake-up feature and a
 * responder that polls.  ucx_perftest cannot measure this case: it always
 * lets UCX allocate its buffers, and on shared memory UCX then reads and
 * writes them directly (rkey_ptr), a path registered memory never gets.
 *
 * Layer: bench (UCX only, no dsmomp layer).  Usage:
 *     transport_raw_ucx [iterations [mt]]     (default 100000)
 * With "mt" the worker is created as the transport creates its own
 * (UCS_THREAD_MODE_MULTI, wake-up feature), to separate what UCX's thread
 * safety costs from what the transport adds; the names get a _mt suffix.
 * Forks a responder; the two processes exchange worker addresses and
 * remote keys over a socketpair.  Prints "RESULT <name> <mean us> <n>"
 * for raw_am_lat_8 (half round trip), raw_get_4k and raw_fadd64.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#define REGION_BYTES ((size_t)1 << 30)

enum { AM_PING = 1, AM_PONG = 2, AM_DONE = 3 };

static ucp_context_h context;
static ucp_worker_h worker;
static ucp_ep_h ep;
static ucp_mem_h memh[2];
static ucp_rkey_h region_rkey, control_rkey;
static uint64_t peer_region, peer_control;
static volatile int got_ping, got_pong, got_done;
static int multi_thread;

static void die(const char *what, ucs_status_t st)
{
    fprintf(stderr, "transport_raw_ucx: %s: %s\n", what,
            ucs_status_string(st));
    exit(1);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static ucs_status_t on_am(void *arg, const void *header, size_t header_len,
                          void *data, size_t len,
                          const ucp_am_recv_param_t *param)
{
    *(volatile int *)arg = 1;
    return UCS_OK;
}

static void wait_done(ucs_status_ptr_t req, const char *what)
{
    if (req == NULL)
        return;
    if (UCS_PTR_IS_ERR(req))
        die(what, UCS_PTR_STATUS(req));
    ucs_status_t st;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
        ucp_worker_progress(worker);
    ucp_request_free(req);
    if (st != UCS_OK)
        die(what, st);
}

static void wait_flag(volatile int *flag)
{
    while (!*flag)
        ucp_worker_progress(worker);
    *flag = 0;
}

static void send_am(unsigned id)
{
    uint64_t payload = 0;
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                               .flags = UCP_AM_SEND_FLAG_EAGER};
    wait_done(ucp_am_send_nbx(ep, id, NULL, 0, &payload, sizeof payload,
                              &prm), "am send");
}

/* Send a length-prefixed blob over the socket, and receive one. */
static void put_blob(int fd, const void *p, size_t len)
{
    uint64_t n = len;
    if (write(fd, &n, sizeof n) != sizeof n ||
        write(fd, p, len) != (ssize_t)len)
        exit(1);
}

static void *get_blob(int fd)
{
    uint64_t n;
    if (read(fd, &n, sizeof n) != sizeof n)
        exit(1);
    char *p = malloc(n);
    size_t got = 0;
    while (p && got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r <= 0)
            exit(1);
        got += (size_t)r;
    }
    return p;
}

static void set_up(int fd, void *region, void *control)
{
    ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES,
                           .features = UCP_FEATURE_AM | UCP_FEATURE_RMA |
                                       UCP_FEATURE_AMO64};
    if (multi_thread)
        params.features |= UCP_FEATURE_AMO32 | UCP_FEATURE_WAKEUP;
    ucs_status_t st = ucp_init(&params, NULL, &context);
    if (st != UCS_OK)
        die("ucp_init", st);
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = multi_thread
                                                 ? UCS_THREAD_MODE_MULTI
                                                 : UCS_THREAD_MODE_SINGLE};
    if ((st = ucp_worker_create(context, &wp, &worker)) != UCS_OK)
        die("ucp_worker_create", st);
    volatile int *flags[] = {NULL, &got_ping, &got_pong, &got_done};
    for (unsigned id = AM_PING; id <= AM_DONE; id++) {
        ucp_am_handler_param_t hp = {
            .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                          UCP_AM_HANDLER_PARAM_FIELD_CB |
                          UCP_AM_HANDLER_PARAM_FIELD_ARG,
            .id = id, .cb = on_am, .arg = (void *)flags[id]};
        if ((st = ucp_worker_set_am_recv_handler(worker, &hp)) != UCS_OK)
            die("am handler", st);
    }
    /* both segments registered the way the transport registers them */
    void *bases[2] = {region, control};
    size_t sizes[2] = {REGION_BYTES, 4096};
    for (int s = 0; s < 2; s++) {
        ucp_mem_map_params_t mp = {
            .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                          UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                          UCP_MEM_MAP_PARAM_FIELD_FLAGS,
            .address = bases[s], .length = sizes[s],
            .flags = UCP_MEM_MAP_NONBLOCK};
        if ((st = ucp_mem_map(context, &mp, &memh[s])) != UCS_OK)
            die("ucp_mem_map", st);
        void *rkey;
        size_t rkey_len;
        if ((st = ucp_rkey_pack(context, memh[s], &rkey, &rkey_len)) !=
            UCS_OK)
            die("ucp_rkey_pack", st);
        put_blob(fd, rkey, rkey_len);
        put_blob(fd, &bases[s], sizeof bases[s]);
        ucp_rkey_buffer_release(rkey);
    }
    ucp_address_t *addr;
    size_t addr_len;
    if ((st = ucp_worker_get_address(worker, &addr, &addr_len)) != UCS_OK)
        die("address", st);
    put_blob(fd, addr, addr_len);
    ucp_worker_release_address(worker, addr);

    void *rkeys[2], *peer_bases[2];
    for (int s = 0; s < 2; s++) {
        rkeys[s] = get_blob(fd);
        peer_bases[s] = get_blob(fd);
    }
    void *peer_addr = get_blob(fd);
    ucp_ep_params_t ep_params = {.field_mask =
                                     UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                                 .address = peer_addr};
    if ((st = ucp_ep_create(worker, &ep_params, &ep)) != UCS_OK)
        die("ucp_ep_create", st);
    if ((st = ucp_ep_rkey_unpack(ep, rkeys[0], &region_rkey)) != UCS_OK ||
        (st = ucp_ep_rkey_unpack(ep, rkeys[1], &control_rkey)) != UCS_OK)
        die("rkey unpack", st);
    memcpy(&peer_region, peer_bases[0], sizeof peer_region);
    memcpy(&peer_control, peer_bases[1], sizeof peer_control);
    for (int s = 0; s < 2; s++) {
        free(rkeys[s]);
        free(peer_bases[s]);
    }
    free(peer_addr);
}

static void responder(void)
{
    /* echo pings until told to stop; serve RMA and atomics meanwhile */
    for (;;) {
        while (!got_ping && !got_done)
            ucp_worker_progress(worker);
        if (got_done)
            break;
        got_ping = 0;
        send_am(AM_PONG);
    }
}

static void report(const char *name, double t0, double t1, long n, int half)
{
    double us = (t1 - t0) / (double)n;
    printf("RESULT %s%s %.3f %ld\n", name, multi_thread ? "_mt" : "",
           half ? us / 2 : us, n);
}

static void measure(long iters)
{
    static unsigned char buf[4096];
    uint64_t one = 1, old;
    ucp_request_param_t get_prm = {.op_attr_mask = 0};
    ucp_request_param_t amo_prm = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE |
                        UCP_OP_ATTR_FIELD_REPLY_BUFFER,
        .datatype = ucp_dt_make_contig(8), .reply_buffer = &old};
    for (int pass = 0; pass < 2; pass++) {      /* warm-up, then measure */
        long n = pass ? iters : iters / 10;
        double t0 = now_us();
        for (long i = 0; i < n; i++) {
            send_am(AM_PING);
            wait_flag(&got_pong);
        }
        double t1 = now_us();
        if (pass)
            report("raw_am_lat_8", t0, t1, n, 1);
        t0 = now_us();
        for (long i = 0; i < n; i++)
            wait_done(ucp_get_nbx(ep, buf, sizeof buf, peer_region + 64 * 4096,
                                  region_rkey, &get_prm), "get");
        t1 = now_us();
        if (pass)
            report("raw_get_4k", t0, t1, n, 0);
        t0 = now_us();
        for (long i = 0; i < n; i++)
            wait_done(ucp_atomic_op_nbx(ep, UCP_ATOMIC_OP_ADD, &one, 1,
                                        peer_control, control_rkey, &amo_prm),
                      "fadd");
        t1 = now_us();
        if (pass)
            report("raw_fadd64", t0, t1, n, 0);
    }
    send_am(AM_DONE);
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 100000;
    multi_thread = argc > 2 && !strcmp(argv[2], "mt");
    int sv[2];
    if (iters < 100 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 2;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    int fd = sv[pid == 0 ? 1 : 0];
    int mfd = memfd_create("raw-region", MFD_CLOEXEC);
    if (mfd < 0 || ftruncate(mfd, (off_t)REGION_BYTES) != 0)
        return 1;
    void *region = mmap(NULL, REGION_BYTES, PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_NORESERVE, mfd, 0);
    void *control = aligned_alloc(4096, 4096);
    if (region == MAP_FAILED || !control)
        return 1;
    set_up(fd, region, control);
    if (pid == 0)
        responder();
    else
        measure(iters);
    ucp_rkey_destroy(region_rkey);
    ucp_rkey_destroy(control_rkey);
    ucp_request_param_t close_prm = {.op_attr_mask = 0};
    wait_done(ucp_ep_close_nbx(ep, &close_prm), "close");
    for (int s = 0; s < 2; s++)
        ucp_mem_unmap(context, memh[s]);
    ucp_worker_destroy(worker);
    ucp_cleanup(context);
    if (pid != 0)
        waitpid(pid, NULL, 0);
    return 0;
}
