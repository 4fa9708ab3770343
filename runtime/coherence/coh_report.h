/*
 * coh_report.h - the job's statistics at its end: every node's counters
 * and per-page accounting gathered at node 0 over the job's own
 * connections (so nodes on other hosts are included), then one table
 * (DSM_STATS=1), or one JSON document (DSM_STATS=json), and the sharing
 * report (DSM_REPORT) printed by node 0 alone.
 *
 * Layer: coherence (internal).
 *   coh_report_start     at start-up (the run's clock starts)
 *   coh_report_finalize  collective, in dsm_coh_finalize after the final
 *                        barrier, main thread: every node sends node 0
 *                        its report, node 0 prints (coh_report_table.c,
 *                        coh_report_sharing.c)
 * The printers below are node 0's, called by coh_report_finalize.
 */
#ifndef COH_REPORT_H
#define COH_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "coh_report_wire.h"
#include "coh_state.h"

void coh_report_start(void);
dsm_status_t coh_report_register_handlers(void);
void coh_report_finalize(void);

/* What node 0 holds once every report is in. */
typedef struct coh_report_job {
    int size;
    coh_report_view_t node[COH_MAX_NODES];
} coh_report_job_t;

/* What a page cost a node, estimated in nanoseconds: the measured time of
 * its faults, plus for each diff the node's release time divided among
 * its diffs, plus for each atomic the node's mean atomic time. */
static inline double coh_report_page_cost_ns(const coh_report_page_t *p,
                                             const coh_msg_report_t *h)
{
    double release = h->stats.protocol_ns > h->fault_ns
                         ? (double)(h->stats.protocol_ns - h->fault_ns) : 0;
    double per_diff = h->stats.diffs_sent ? release / h->stats.diffs_sent : 0;
    double per_atomic = h->atomic_calls ? (double)h->atomic_ns /
                                              (double)h->atomic_calls : 0;
    return (double)p->fault_ns + p->diffs * per_diff +
           p->atomics * per_atomic;
}

/* Message kind names (coherence's; others are numbered). */
const char *coh_report_am_name(int id, char buf[16]);

/* The table, and the counters' part of the JSON document (an object's
 * members, without its braces). */
void coh_report_table_text(FILE *f, const coh_report_job_t *job);
void coh_report_table_json(FILE *f, const coh_report_job_t *job);
/* The largest share of its run time a node spent in the protocol (faults,
 * releases, flushes): decides whether DSM_REPORT=auto prints. */
double coh_report_protocol_share(const coh_report_job_t *job);

/* The sharing report: analysed once (asking the other nodes to name their
 * heap blocks, through ask_names), then printed as text or as the
 * "sharing" member of the JSON document. */
typedef struct coh_sharing_report coh_sharing_report_t;
/* Send node its names request and wait for the reply (count 0 allowed);
 * returns the reply's bytes (malloc'd, decoded by the caller) or NULL. */
typedef void *(*coh_report_ask_fn)(int node, const coh_names_item_t *items,
                                   uint32_t count, size_t *len);
coh_sharing_report_t *coh_report_sharing_analyse(const coh_report_job_t *job,
                                                 coh_report_ask_fn ask);
void coh_report_sharing_text(FILE *f, const coh_sharing_report_t *r);
void coh_report_sharing_json(FILE *f, const coh_sharing_report_t *r);
void coh_report_sharing_free(coh_sharing_report_t *r);

/* This node's heap blocks at the hot words of items, as a names reply
 * (malloc'd, *len bytes). */
void *coh_report_names_reply(const coh_names_item_t *items, uint32_t count,
                             size_t *len);

#endif
