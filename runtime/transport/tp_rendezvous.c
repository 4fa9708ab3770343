/*
 * tp_rendezvous.c - the TCP bootstrap of dsm_tp_init: rank 0 accepts a
 * hello from every other rank and sends everyone the table of all node
 * records (UCX worker addresses, segments, remote keys).
 *
 * Layer: transport.  Entry point: tp_rendezvous.  Start-up only (malloc,
 * logging); called once from dsm_tp_init.
 *
 * Rank 0 listens on the socket inherited from dsmrun (DSM_RENDEZVOUS_FD)
 * or binds DSM_RENDEZVOUS itself.  Every accepted connection is
 * non-blocking and served from one poll(2) loop with its own deadline, so a
 * client that sends garbage, a wrong token, or nothing at all is refused
 * (a warning names its address and the reason) without delaying the
 * others.  The hello is checked in order: magic, version, token (constant
 * time), rank (in range, not yet joined), lengths.  Connections still
 * pending when every rank has joined are closed with the listening socket.
 * The accepted sockets stay open: tp_liveness.c uses them afterwards.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base_config.h"
#include "base_log.h"
#include "base_time.h"
#include "tp_rendezvous.h"
#include "tp_state.h"
#include "tp_wire.h"

#define MAX_PENDING 64           /* connections without a complete hello */
#define HELLO_GRACE_MS 10000u    /* per connection, capped by DSM_TIMEOUT */
#define RETRY_CONNECT_MS 20

typedef struct conn {
    int fd;
    uint64_t deadline_ns;
    char who[INET6_ADDRSTRLEN + 8];
    unsigned char *buf;
    size_t have, need;
    uint32_t rank;
} conn_t;

static int remaining_ms(uint64_t deadline_ns)
{
    uint64_t now = dsm_now_ns();
    if (now >= deadline_ns)
        return 0;
    uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
    return ms > 60000 ? 60000 : (int)ms;
}

static void describe_peer(int fd, char *who, size_t len)
{
    struct sockaddr_storage sa;
    socklen_t salen = sizeof sa;
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (getpeername(fd, (struct sockaddr *)&sa, &salen) == 0) {
        if (sa.ss_family == AF_INET) {
            struct sockaddr_in *in = (struct sockaddr_in *)&sa;
            inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
            port = ntohs(in->sin_port);
        } else if (sa.ss_family == AF_INET6) {
            struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&sa;
            inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
            port = ntohs(in6->sin6_port);
        }
    }
    snprintf(who, len, "%s:%u", host, port);
}

static void tune_socket(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* Blocking-style transfers on non-blocking sockets, bounded by a deadline.
 * Return DSM_OK, DSM_ERR_TIMEOUT, DSM_ERR_PEER_FAILED (EOF or reset). */
static dsm_status_t send_all(int fd, const void *buf, size_t len,
                             uint64_t deadline_ns)
{
    const unsigned char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return DSM_ERR_PEER_FAILED;
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int ms = remaining_ms(deadline_ns);
        if (ms == 0)
            return DSM_ERR_TIMEOUT;
        poll(&pfd, 1, ms);
    }
    return DSM_OK;
}

static dsm_status_t recv_all(int fd, void *buf, size_t len,
                             uint64_t deadline_ns)
{
    unsigned char *p = buf;
    while (len) {
        ssize_t n = recv(fd, p, len, 0);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n == 0)
            return DSM_ERR_PEER_FAILED;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return DSM_ERR_PEER_FAILED;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ms = remaining_ms(deadline_ns);
        if (ms == 0)
            return DSM_ERR_TIMEOUT;
        poll(&pfd, 1, ms);
    }
    return DSM_OK;
}

/* ---- rank 0 ----------------------------------------------------------------- */

static int open_listener(const dsm_config_t *cfg)
{
    if (cfg->rendezvous_fd >= 0) {
        int listening = 0;
        socklen_t len = sizeof listening;
        if (getsockopt(cfg->rendezvous_fd, SOL_SOCKET, SO_ACCEPTCONN,
                       &listening, &len) != 0 || !listening) {
            dsm_log(DSM_LOG_ERROR, "DSM_RENDEZVOUS_FD=%d is not a listening "
                    "socket", cfg->rendezvous_fd);
            return -1;
        }
        fcntl(cfg->rendezvous_fd, F_SETFD, FD_CLOEXEC);
        return cfg->rendezvous_fd;
    }
    char port[8];
    snprintf(port, sizeof port, "%u", cfg->rendezvous_port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE};
    struct addrinfo *res;
    int rc = getaddrinfo(cfg->rendezvous_host, port, &hints, &res);
    if (rc != 0) {
        dsm_log(DSM_LOG_ERROR, "DSM_RENDEZVOUS=%s:%s: %s",
                cfg->rendezvous_host, port, gai_strerror(rc));
        return -1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
                    ai->ai_protocol);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
            listen(fd, 128) != 0) {
            err = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        dsm_log(DSM_LOG_ERROR, "listening on DSM_RENDEZVOUS=%s:%s: %s",
                cfg->rendezvous_host, port, strerror(err));
    return fd;
}

static void refuse(conn_t *c, const char *why)
{
    dsm_log(DSM_LOG_WARN, "refused connection from %s: %s", c->who, why);
    close(c->fd);
    free(c->buf);
    c->fd = -1;
    c->buf = NULL;
}

/* Check what has arrived so far (tp_wire_check_hello decodes it).
 * Returns -1 (refused), 0 (need more), 1 (complete hello). */
static int check_hello(conn_t *c, const char *token, int size,
                       const int *joined)
{
    char why[64];
    tp_hello_t h;
    switch (tp_wire_check_hello(c->buf, c->have, token, size, &h)) {
    case TP_HELLO_BAD:
        if (h.bad_rank) {
            snprintf(why, sizeof why, "rank %u out of range 1..%d", h.rank,
                     size - 1);
            refuse(c, why);
        } else {
            refuse(c, h.why);
        }
        return -1;
    case TP_HELLO_MORE:
        if (h.need > c->need) {
            unsigned char *grown = realloc(c->buf, h.need);
            if (!grown) {
                refuse(c, "out of memory");
                return -1;
            }
            c->buf = grown;
            c->need = h.need;
        }
        return 0;
    case TP_HELLO_DONE:
        break;
    }
    /* checked last: another connection may have claimed the rank while
     * this one was arriving */
    c->rank = h.rank;
    if (joined[c->rank]) {
        snprintf(why, sizeof why, "duplicate rank %u", c->rank);
        refuse(c, why);
        return -1;
    }
    return 1;
}

/* Read what is available.  Returns -1 (refused), 0 (more), 1 (complete). */
static int serve_conn(conn_t *c, const char *token, int size,
                      const int *joined)
{
    for (;;) {
        ssize_t n = recv(c->fd, c->buf + c->have, c->need - c->have, 0);
        if (n == 0) {
            refuse(c, c->have ? "closed during its hello"
                              : "closed without a hello");
            return -1;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            refuse(c, strerror(errno));
            return -1;
        }
        c->have += (size_t)n;
        int state = check_hello(c, token, size, joined);
        if (state != 0)
            return state;
    }
}

static void accept_new(int lfd, conn_t *conns, int *nconns,
                       unsigned grace_ms)
{
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;   /* EAGAIN, or a transient error: poll again */
        conn_t c = {.fd = fd,
                    .deadline_ns = dsm_now_ns() + grace_ms * 1000000ull,
                    .need = TP_WIRE_HELLO_FIXED + TP_WIRE_RECORD_FIXED};
        describe_peer(fd, c.who, sizeof c.who);
        if (*nconns == MAX_PENDING) {
            dsm_log(DSM_LOG_WARN, "refused connection from %s: too many "
                    "connections without a hello", c.who);
            close(fd);
            continue;
        }
        c.buf = malloc(c.need);
        if (!c.buf) {
            close(fd);
            continue;
        }
        tune_socket(fd);
        conns[(*nconns)++] = c;
    }
}

static void fatal_missing(const int *joined, int size, unsigned timeout_ms)
{
    char list[256] = "";
    size_t len = 0;
    for (int r = 1; r < size && len + 16 < sizeof list; r++)
        if (!joined[r])
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%d",
                                    len ? ", " : "", r);
    dsm_fatal("timed out after %u s waiting for node(s) %s to join the "
              "wire-up", timeout_ms / 1000u, list);
}

static dsm_status_t serve(const tp_record_t *mine, tp_record_t *table,
                          int *socks, void **storage)
{
    const dsm_config_t *cfg = dsm_config();
    const int size = tp.size;
    int lfd = open_listener(cfg);
    if (lfd < 0)
        return DSM_ERR_IO;
    fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);

    unsigned grace_ms = tp.timeout_ms < HELLO_GRACE_MS ? tp.timeout_ms
                                                       : HELLO_GRACE_MS;
    unsigned char **hellos = calloc((size_t)size, sizeof *hellos);
    size_t *hello_len = calloc((size_t)size, sizeof *hello_len);
    int *joined = calloc((size_t)size, sizeof *joined);
    conn_t *conns = calloc(MAX_PENDING, sizeof *conns);
    struct pollfd *pfds = calloc(MAX_PENDING + 1, sizeof *pfds);
    dsm_status_t status = DSM_ERR_NOMEM;
    if (!hellos || !hello_len || !joined || !conns || !pfds)
        goto out;

    int njoined = 1, nconns = 0;
    const uint64_t deadline = dsm_now_ns() + tp.timeout_ms * 1000000ull;
    while (njoined < size) {
        uint64_t wake = deadline;
        pfds[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
        for (int i = 0; i < nconns; i++) {
            pfds[i + 1] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
            if (conns[i].deadline_ns < wake)
                wake = conns[i].deadline_ns;
        }
        int ms = remaining_ms(wake);
        if (poll(pfds, (nfds_t)nconns + 1, ms ? ms : 1) < 0 && errno != EINTR)
            dsm_fatal("poll during wire-up: %s", strerror(errno));

        uint64_t now = dsm_now_ns();
        for (int i = 0; i < nconns; i++) {
            conn_t *c = &conns[i];
            int state = 0;
            if (pfds[i + 1].revents)
                state = serve_conn(c, cfg->token, size, joined);
            else if (now >= c->deadline_ns) {
                char why[64];
                snprintf(why, sizeof why, "no hello within %u s",
                         (grace_ms + 999u) / 1000u);
                refuse(c, why);
            }
            if (state == 1) {
                hellos[c->rank] = c->buf;
                hello_len[c->rank] = c->have;
                socks[c->rank] = c->fd;
                joined[c->rank] = 1;
                njoined++;
                dsm_debug("node %u joined from %s", c->rank, c->who);
                c->fd = -1;
                c->buf = NULL;
            }
        }
        /* compact the finished connections away, keeping pfds in step on
         * the next round */
        int kept = 0;
        for (int i = 0; i < nconns; i++)
            if (conns[i].fd >= 0)
                conns[kept++] = conns[i];
        nconns = kept;
        if (pfds[0].revents & POLLIN)
            accept_new(lfd, conns, &nconns, grace_ms);
        if (njoined < size && dsm_now_ns() >= deadline)
            fatal_missing(joined, size, tp.timeout_ms);
    }
    for (int i = 0; i < nconns; i++)
        refuse(&conns[i], "wire-up already complete");
    close(lfd);
    lfd = -1;

    /* the table: every record in rank order */
    size_t body = tp_wire_record_len(mine);
    for (int r = 1; r < size; r++)
        body += hello_len[r] - TP_WIRE_HELLO_FIXED;
    unsigned char *msg = malloc(TP_WIRE_TABLE_FIXED + body);
    if (!msg)
        goto out;
    tp_wire_put_u32(msg, TP_MAGIC_TABLE);
    tp_wire_put_u32(msg + 4, TP_WIRE_VERSION);
    tp_wire_put_u32(msg + 8, (uint32_t)size);
    tp_wire_put_u32(msg + 12, (uint32_t)body);
    unsigned char *p = msg + TP_WIRE_TABLE_FIXED;
    tp_wire_put_record(p, mine);
    p += tp_wire_record_len(mine);
    for (int r = 1; r < size; r++) {
        size_t len = hello_len[r] - TP_WIRE_HELLO_FIXED;
        memcpy(p, hellos[r] + TP_WIRE_HELLO_FIXED, len);
        p += len;
    }
    status = tp_wire_get_table(msg + TP_WIRE_TABLE_FIXED, body, size, table);
    if (status != DSM_OK) {
        free(msg);
        goto out;
    }
    for (int r = 1; r < size; r++) {
        dsm_status_t st = send_all(socks[r], msg, TP_WIRE_TABLE_FIXED + body,
                                   deadline);
        if (st == DSM_ERR_TIMEOUT)
            dsm_fatal("timed out after %u s sending the wire-up table to "
                      "node %d", tp.timeout_ms / 1000u, r);
        if (st != DSM_OK)
            dsm_fatal("node %d failed: connection lost during wire-up", r);
    }
    *storage = msg;
    status = DSM_OK;
out:
    if (lfd >= 0)
        close(lfd);
    if (hellos)
        for (int r = 0; r < size; r++)
            free(hellos[r]);
    free(hellos);
    free(hello_len);
    free(joined);
    free(conns);
    free(pfds);
    return status;
}

/* ---- ranks > 0 ---------------------------------------------------------------- */

static int connect_once(const struct addrinfo *ai, uint64_t deadline)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
                    SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
        return -1;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
        return fd;
    if (errno == EINPROGRESS) {
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int err = 0;
        socklen_t len = sizeof err;
        if (poll(&pfd, 1, remaining_ms(deadline)) == 1 &&
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && !err)
            return fd;
    }
    close(fd);
    return -1;
}

static int connect_rendezvous(const dsm_config_t *cfg, uint64_t deadline)
{
    char port[8];
    snprintf(port, sizeof port, "%u", cfg->rendezvous_port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM};
    struct addrinfo *res;
    int rc = getaddrinfo(cfg->rendezvous_host, port, &hints, &res);
    if (rc != 0) {
        dsm_log(DSM_LOG_ERROR, "DSM_RENDEZVOUS=%s:%s: %s",
                cfg->rendezvous_host, port, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    /* Node 0 may not listen yet when it binds the address itself: retry
     * until the deadline. */
    while (fd < 0) {
        for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
            fd = connect_once(ai, deadline);
        if (fd < 0) {
            if (remaining_ms(deadline) == 0)
                dsm_fatal("timed out after %u s connecting to node 0 at "
                          "%s:%s", tp.timeout_ms / 1000u,
                          cfg->rendezvous_host, port);
            poll(NULL, 0, RETRY_CONNECT_MS);
        }
    }
    freeaddrinfo(res);
    tune_socket(fd);
    return fd;
}

static dsm_status_t join(const tp_record_t *mine, tp_record_t *table,
                         int *socks, void **storage)
{
    const dsm_config_t *cfg = dsm_config();
    const uint64_t deadline = dsm_now_ns() + tp.timeout_ms * 1000000ull;
    int fd = connect_rendezvous(cfg, deadline);
    if (fd < 0)
        return DSM_ERR_IO;

    size_t hello_len = TP_WIRE_HELLO_FIXED + tp_wire_record_len(mine);
    unsigned char *hello = malloc(hello_len);
    if (!hello) {
        close(fd);
        return DSM_ERR_NOMEM;
    }
    tp_wire_put_hello_header(hello, (uint32_t)tp.rank, cfg->token);
    tp_wire_put_record(hello + TP_WIRE_HELLO_FIXED, mine);
    dsm_status_t st = send_all(fd, hello, hello_len, deadline);
    free(hello);

    unsigned char head[TP_WIRE_TABLE_FIXED];
    if (st == DSM_OK)
        st = recv_all(fd, head, sizeof head, deadline);
    if (st == DSM_ERR_TIMEOUT)
        dsm_fatal("timed out after %u s waiting for the wire-up table from "
                  "node 0", tp.timeout_ms / 1000u);
    if (st != DSM_OK) {
        dsm_log(DSM_LOG_ERROR, "node 0 closed the wire-up connection: it "
                "refused this node (token or rank) or failed");
        close(fd);
        return DSM_ERR_REFUSED;
    }
    size_t body;
    if (tp_wire_get_table_header(head, tp.size, &body) != DSM_OK) {
        dsm_log(DSM_LOG_ERROR, "malformed wire-up table from node 0 (is "
                "DSM_SIZE=%d the same on every node?)", tp.size);
        close(fd);
        return DSM_ERR_PROTOCOL;
    }
    unsigned char *msg = malloc(body ? body : 1);
    if (!msg) {
        close(fd);
        return DSM_ERR_NOMEM;
    }
    st = recv_all(fd, msg, body, deadline);
    if (st == DSM_ERR_TIMEOUT)
        dsm_fatal("timed out after %u s waiting for the wire-up table from "
                  "node 0", tp.timeout_ms / 1000u);
    if (st == DSM_OK)
        st = tp_wire_get_table(msg, body, tp.size, table);
    if (st != DSM_OK) {
        dsm_log(DSM_LOG_ERROR, "wire-up table from node 0: %s",
                dsm_status_string(st));
        free(msg);
        close(fd);
        return st;
    }
    socks[0] = fd;
    *storage = msg;
    return DSM_OK;
}

dsm_status_t tp_rendezvous(const tp_record_t *mine, tp_record_t *table,
                           int *socks, void **storage)
{
    return tp.rank == 0 ? serve(mine, table, socks, storage)
                        : join(mine, table, socks, storage);
}
