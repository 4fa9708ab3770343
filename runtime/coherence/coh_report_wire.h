/*
 * coh_report_wire.h - the messages of the job's statistics report at
 * finalize, and their decoders.
 *
 *   COH_AM_REPORT            node -> node 0: its counters, its message
 *                            counts, its costliest pages (per-page
 *                            accounting) and its flush call sites
 *   COH_AM_REPORT_NAMES_REQ  node 0 -> node: name the heap blocks of your
 *                            arena at these pages' hot words
 *   COH_AM_REPORT_NAMES_REP  node -> node 0: the blocks and their call
 *                            sites, as text
 *
 * Layer: coherence (internal).  The decoders are pure (no side effects, no
 * allocation, no logging), as those of coh_wire.h: a handler ends the job
 * naming the sender when one fails.  Fields are read with memcpy (the
 * payload may be unaligned).
 */
#ifndef COH_REPORT_WIRE_H
#define COH_REPORT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "coh_msg.h"
#include "coh_sharing.h"
#include "dsm.h"
#include "transport.h"

/* A node's report: this header, npages coh_report_page_t, nsync
 * coh_report_sync_t. */
typedef struct coh_msg_report {
    uint32_t node;
    uint32_t npages;
    uint32_t nsync;
    uint32_t sharing;            /* 1: the accounting was on */
    uint32_t steps;              /* phases: regions started + barriers */
    uint32_t shift;              /* timeline bucket = (step - 1) >> shift */
    uint32_t pad;
    uint32_t threads;            /* threads per node (DSM_THREADS) */
    uint64_t run_ns;             /* from the end of start-up (the job
                                    wired up) to finalize */
    uint64_t fault_ns;           /* measured time of every fault */
    uint64_t untracked;          /* events of pages without a record */
    uint64_t sync_ns;            /* time in flushes */
    uint64_t atomic_calls;       /* program atomics made */
    uint64_t atomic_ns;          /* and their time */
    dsm_stats_t stats;
    uint64_t am_sent[DSM_TP_AM_MAX_ID];
    uint64_t am_bytes[DSM_TP_AM_MAX_ID];
} coh_msg_report_t;

/* One page as one node saw it (a plain copy of coh_sharing_page_t). */
typedef struct coh_report_page {
    uint32_t page;               /* index (not + 1) */
    uint32_t read_faults, write_faults, fetches, diffs;
    uint32_t atomics, atomic_loads, migrations;
    uint64_t diff_bytes, fault_ns;
    uint64_t threads_read, threads_wrote;
    uint64_t touched[COH_SHARING_MASK_WORDS];
    uint64_t written[COH_SHARING_MASK_WORDS];
    uint16_t timeline[COH_SHARING_BUCKETS];
} coh_report_page_t;

typedef struct coh_report_sync {
    uint64_t pc, inside, count, ns;
} coh_report_sync_t;

/* Names request: header, then count items. */
typedef struct coh_msg_names {
    uint32_t count;
    uint32_t pad;
} coh_msg_names_t;
typedef struct coh_names_item {
    uint64_t page_addr;          /* a page of the receiver's arena */
    uint64_t hot[COH_SHARING_MASK_WORDS];  /* its words to name */
} coh_names_item_t;
#define COH_NAMES_MAX_ITEMS 512u

/* Names reply: header (count blocks), then count blocks. */
#define COH_NAME_TEXT 200
typedef struct coh_names_block {
    uint32_t item;               /* the request's item it answers */
    uint32_t runtime;            /* allocated by the runtime itself */
    uint64_t start, size;
    char where[COH_NAME_TEXT];   /* NUL-terminated: "prog.c:14 (main)" */
} coh_names_block_t;
#define COH_NAMES_MAX_BLOCKS (8u * COH_NAMES_MAX_ITEMS)

typedef struct coh_report_limits {
    uint32_t nodes;
    size_t pages;                /* pages of the sharable space */
} coh_report_limits_t;

/* A node's report: node below nodes, npages records with pages inside
 * the space, the sizes adding up exactly; shift below 32. */
typedef struct coh_report_view {
    coh_msg_report_t hdr;
    const unsigned char *pages;  /* hdr.npages coh_report_page_t */
    const unsigned char *sync;   /* hdr.nsync coh_report_sync_t */
} coh_report_view_t;
dsm_status_t coh_report_decode(const void *msg, size_t len,
                               const coh_report_limits_t *lim,
                               coh_report_view_t *out);
coh_report_page_t coh_report_page_at(const coh_report_view_t *v, uint32_t k);
coh_report_sync_t coh_report_sync_at(const coh_report_view_t *v, uint32_t k);

/* Names request: at most COH_NAMES_MAX_ITEMS items, page-aligned. */
dsm_status_t coh_report_names_req_decode(const void *msg, size_t len,
                                         uint32_t *count);
coh_names_item_t coh_report_names_item(const void *msg, uint32_t k);

/* Names reply: at most COH_NAMES_MAX_BLOCKS blocks, each item below
 * items (what was asked) and each text NUL-terminated. */
dsm_status_t coh_report_names_rep_decode(const void *msg, size_t len,
                                         uint32_t items, uint32_t *count);
coh_names_block_t coh_report_names_block(const void *msg, uint32_t k);

#endif
