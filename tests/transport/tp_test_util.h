/*
 * tp_test_util.h - helpers shared by the transport's test programs: start
 * a node with real segments, and a barrier made of active messages.
 *
 * Layer: tests (links the transport).  Called from test bodies on the main
 * thread.  The barrier uses active-message ids TT_AM_ARRIVE and
 * TT_AM_RELEASE, which the programs must leave free.
 */
#ifndef TP_TEST_UTIL_H
#define TP_TEST_UTIL_H

#include <stddef.h>

#include "sys_region.h"
#include "transport.h"

#define TT_AM_ARRIVE 62
#define TT_AM_RELEASE 63

typedef struct tt_node {
    dsm_region_t region;     /* sharable region: memfd, runtime view */
    void *control;           /* control segment, page aligned, zeroed */
    size_t control_size;
    int rank, size;
} tt_node_t;

/* Load the DSM_* configuration (exit 1 if invalid), make failed cmocka
 * assertions abort the process, and register the barrier's handlers.
 * Call before registering the program's own handlers. */
void tt_prepare(void);
/* Create the segments (region of DSM_REGION_SIZE bytes) and dsm_tp_init;
 * exits the process on failure. */
void tt_start(tt_node_t *node, size_t control_size);
/* dsm_tp_finalize and release the segments. */
void tt_stop(tt_node_t *node);
/* Every node waits until all nodes have arrived. */
void tt_barrier(void);
/* A byte derived from (a, b, i): test patterns. */
static inline unsigned char tt_pattern(unsigned a, unsigned b, size_t i)
{
    return (unsigned char)(a * 131u + b * 31u + i * 7u + (i >> 12));
}

#endif
