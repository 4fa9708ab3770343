/*
 * patterns_stats.c - the DSM statistics of a kernel's timed steps only
 * (not its set-up and check): a parallel region before the first timed
 * step and one after the last, in which the first thread of every node
 * reads its node's counters (dsm_stats_get); the master prints the
 * difference per node as one "stats: {json}" line.  Each node's marks lie
 * in a page of their own, so the marks themselves move little (one write
 * fault and one diff per node and mark, against hundreds of steps).
 *
 * Built with -DPATTERNS_DSM (dsmcc builds); otherwise the functions do
 * nothing.  Application code: called by the master between steps.
 */
#include "patterns.h"

#ifdef PATTERNS_DSM
#include <stdio.h>

#include "dsm.h"
#include "kmp_cluster.h"

#define PATTERNS_MAX_NODES 64

struct node_mark {
    dsm_stats_t counters;
    int taken;
} __attribute__((aligned(4096)));

static struct node_mark begin_marks[PATTERNS_MAX_NODES];
static struct node_mark end_marks[PATTERNS_MAX_NODES];

static void take_marks(struct node_mark *marks)
{
#pragma omp parallel
    {
        int node = kmp_get_process_num();
        if (kmp_get_process_thread_num() == 0 && node < PATTERNS_MAX_NODES) {
            dsm_stats_t now;
            dsm_stats_get(&now);
            marks[node].counters = now;
            marks[node].taken = 1;
        }
    }
}

void patterns_stats_begin(void)
{
    for (int i = 0; i < PATTERNS_MAX_NODES; i++)
        begin_marks[i].taken = end_marks[i].taken = 0;
    take_marks(begin_marks);
}

#define FIELD(name) \
    printf("%s\"" #name "\": %llu", first ? "" : ", ", \
           (unsigned long long)(e->name - b->name)), first = 0

void patterns_stats_end(long steps)
{
    take_marks(end_marks);
    int nodes = kmp_get_num_processes();
    if (nodes > PATTERNS_MAX_NODES)
        nodes = PATTERNS_MAX_NODES;
    printf("stats: {\"steps\": %ld, \"nodes\": [", steps);
    for (int n = 0, listed = 0; n < nodes; n++) {
        if (!begin_marks[n].taken || !end_marks[n].taken)
            continue;               /* no thread of the team ran there */
        const dsm_stats_t *b = &begin_marks[n].counters;
        const dsm_stats_t *e = &end_marks[n].counters;
        int first = 1;
        printf("%s{\"node\": %d, ", listed++ ? ", " : "", n);
        FIELD(read_faults);
        FIELD(write_faults);
        FIELD(pages_fetched);
        FIELD(twins);
        FIELD(diffs_sent);
        FIELD(diff_bytes_sent);
        FIELD(diff_bytes_applied);
        FIELD(write_notices_sent);
        FIELD(write_notices_received);
        FIELD(invalidations);
        FIELD(barriers);
        FIELD(lock_acquires);
        FIELD(messages_sent);
        FIELD(bytes_sent);
        FIELD(rma_gets);
        FIELD(rma_get_bytes);
        FIELD(rma_puts);
        FIELD(rma_put_bytes);
        FIELD(atomics);
        FIELD(protocol_ns);
        FIELD(pages_migrated);
        FIELD(eager_pages);
        FIELD(refreshes);
        FIELD(direct_pages);
        FIELD(flush_acquires);
        FIELD(acquire_gets);
        FIELD(acquire_rounds);
        printf("}");
    }
    printf("]}\n");
    fflush(stdout);
}

#else

void patterns_stats_begin(void) {}
void patterns_stats_end(long steps) { (void)steps; }

#endif
