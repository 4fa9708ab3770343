/*
 * tp_test_util.c - node start-up and an active-message barrier for the
 * transport's test programs.
 *
 * Layer: tests.  See tp_test_util.h.  The barrier: every node but 0 sends
 * ARRIVE to node 0 and waits for RELEASE; node 0 waits until all ARRIVEs
 * of this round are in, then sends RELEASE to everyone.  A node cannot
 * arrive at round k+1 before node 0 released round k, so one counter and
 * one flag per node suffice.
 */
#include "tp_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base_config.h"

static int arrived;               /* node 0: ARRIVEs of this round */
static volatile int all_arrived;  /* node 0: set by the last ARRIVE */
static volatile int released;     /* other nodes: set by RELEASE */

static void on_arrive(int src, const void *payload, size_t len, void *arg)
{
    if (++arrived == dsm_tp_size() - 1) {
        arrived = 0;
        __atomic_store_n(&all_arrived, 1, __ATOMIC_RELEASE);
    }
}

static void on_release(int src, const void *payload, size_t len, void *arg)
{
    __atomic_store_n(&released, 1, __ATOMIC_RELEASE);
}

void tt_prepare(void)
{
    if (dsm_config_load() != DSM_OK)
        exit(1);
    setenv("CMOCKA_TEST_ABORT", "1", 1);
    if (dsm_tp_am_register(DSM_TP_AM_CLIENT, TT_AM_ARRIVE,
                           on_arrive, NULL) != DSM_OK ||
        dsm_tp_am_register(DSM_TP_AM_CLIENT, TT_AM_RELEASE,
                           on_release, NULL) != DSM_OK) {
        fprintf(stderr, "registering the barrier handlers failed\n");
        exit(1);
    }
}

void tt_start(tt_node_t *node, size_t control_size)
{
    memset(node, 0, sizeof *node);
    const dsm_config_t *cfg = dsm_config();
    dsm_status_t st = dsm_sys_region_create(cfg->region_size, &node->region);
    if (st != DSM_OK) {
        fprintf(stderr, "region: %s\n", dsm_status_string(st));
        exit(1);
    }
    node->control = aligned_alloc(DSM_PAGE_SIZE, control_size);
    if (!node->control)
        exit(1);
    memset(node->control, 0, control_size);
    node->control_size = control_size;
    dsm_tp_segments_t segs = {
        .base = {node->region.rt, node->control},
        .size = {node->region.size, control_size},
    };
    /* TT_OFFER_REGION=1: same-host peers map the region (tp_direct.c) */
    const char *offer = getenv("TT_OFFER_REGION");
    if (offer && !strcmp(offer, "1"))
        st = dsm_tp_offer_mapping(DSM_TP_SEG_REGION, node->region.memfd);
    if (st == DSM_OK)
        st = dsm_tp_init(&segs);
    if (st != DSM_OK) {
        fprintf(stderr, "dsm_tp_init: %s\n", dsm_status_string(st));
        exit(1);
    }
    node->rank = dsm_tp_rank();
    node->size = dsm_tp_size();
}

void tt_stop(tt_node_t *node)
{
    dsm_status_t st = dsm_tp_finalize();
    if (st != DSM_OK) {
        fprintf(stderr, "dsm_tp_finalize: %s\n", dsm_status_string(st));
        exit(1);
    }
    dsm_sys_region_destroy(&node->region);
    free(node->control);
}

static void must(dsm_status_t st, const char *what)
{
    if (st != DSM_OK) {
        fprintf(stderr, "barrier: %s: %s\n", what, dsm_status_string(st));
        abort();
    }
}

void tt_barrier(void)
{
    int size = dsm_tp_size();
    if (size == 1)
        return;
    if (dsm_tp_rank() == 0) {
        dsm_tp_wait_flag(&all_arrived, "the test barrier (arrivals)");
        __atomic_store_n(&all_arrived, 0, __ATOMIC_RELAXED);
        for (int r = 1; r < size; r++)
            must(dsm_tp_am_send(r, TT_AM_RELEASE, NULL, 0), "release");
    } else {
        must(dsm_tp_am_send(0, TT_AM_ARRIVE, NULL, 0), "arrive");
        dsm_tp_wait_flag(&released, "the test barrier (release)");
        __atomic_store_n(&released, 0, __ATOMIC_RELAXED);
    }
}
