/*
 * node_pingpong.c - a node that joins its job through the transport layer
 * and exchanges active messages with its peer until it is killed.
 *
 * Layer: tests (links the transport).  Started by dsmrun -n 2.  Prints
 * "node RANK pid PID job JOB" before wire-up, and node 0 prints
 * "node 0 exchanging" after EXCHANGE_MARK round trips, so that a test can
 * kill a node in the middle of the exchange.  Node 0 pings, node 1 answers;
 * a node only sends after it has seen the other's last message, so one
 * flag per direction is enough.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_config.h"
#include "transport.h"

enum {
    AM_PING = DSM_TP_AM_CLIENT_FIRST,
    AM_PONG,
    EXCHANGE_MARK = 1000,
    REGION_BYTES = 64 * 1024,   /* small: the test needs no sharable region */
    CONTROL_BYTES = 4096,
};

static volatile int ping_arrived;
static volatile int pong_arrived;

static void on_ping(int src, const void *payload, size_t len, void *arg)
{
    __atomic_store_n(&ping_arrived, 1, __ATOMIC_RELEASE);
}

static void on_pong(int src, const void *payload, size_t len, void *arg)
{
    __atomic_store_n(&pong_arrived, 1, __ATOMIC_RELEASE);
}

static int fail(const char *what, dsm_status_t status)
{
    fprintf(stderr, "node_pingpong: %s: %s\n", what,
            dsm_status_string(status));
    return 1;
}

static int run_pinger(void)
{
    for (unsigned long round = 1;; round++) {
        __atomic_store_n(&pong_arrived, 0, __ATOMIC_RELAXED);
        dsm_status_t status = dsm_tp_am_send(1, AM_PING, &round, sizeof round);
        if (status != DSM_OK)
            return fail("send ping", status);
        dsm_tp_wait_flag(&pong_arrived, "pong from node 1");
        if (round == EXCHANGE_MARK) {
            printf("node 0 exchanging\n");
            fflush(stdout);
        }
    }
}

static int run_ponger(void)
{
    for (unsigned long round = 1;; round++) {
        dsm_tp_wait_flag(&ping_arrived, "ping from node 0");
        __atomic_store_n(&ping_arrived, 0, __ATOMIC_RELAXED);
        dsm_status_t status = dsm_tp_am_send(0, AM_PONG, &round, sizeof round);
        if (status != DSM_OK)
            return fail("send pong", status);
    }
}

int main(void)
{
    dsm_status_t status = dsm_config_load();
    if (status != DSM_OK)
        return fail("configuration", status);
    const dsm_config_t *config = dsm_config();
    if (config->size != 2) {
        fprintf(stderr, "node_pingpong: needs exactly 2 nodes\n");
        return 1;
    }
    printf("node %d pid %ld job %s\n", config->rank, (long)getpid(),
           getenv("DSM_JOB_ID") ? getenv("DSM_JOB_ID") : "-");
    fflush(stdout);

    static dsm_tp_segments_t segments;
    segments.size[DSM_TP_SEG_REGION] = REGION_BYTES;
    segments.size[DSM_TP_SEG_CONTROL] = CONTROL_BYTES;
    segments.base[DSM_TP_SEG_REGION] = aligned_alloc(4096, REGION_BYTES);
    segments.base[DSM_TP_SEG_CONTROL] = aligned_alloc(4096, CONTROL_BYTES);
    if (!segments.base[DSM_TP_SEG_REGION] || !segments.base[DSM_TP_SEG_CONTROL])
        return fail("allocate segments", DSM_ERR_NOMEM);
    memset(segments.base[DSM_TP_SEG_REGION], 0, REGION_BYTES);
    memset(segments.base[DSM_TP_SEG_CONTROL], 0, CONTROL_BYTES);

    if ((status = dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_PING,
                                     on_ping, NULL)) != DSM_OK ||
        (status = dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_PONG,
                                     on_pong, NULL)) != DSM_OK)
        return fail("register handlers", status);
    if ((status = dsm_tp_init(&segments)) != DSM_OK)
        return fail("dsm_tp_init", status);

    return config->rank == 0 ? run_pinger() : run_ponger();
}
