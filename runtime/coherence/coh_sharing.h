/*
 * coh_sharing.h - per-page accounting for the sharing report: what each
 * page of the sharable space cost this node (faults and their time,
 * fetches, diffs, home moves, atomics), which words of it this node
 * touched and wrote, which threads did, and when (a timeline over the
 * job's phases: region starts and barriers); on node 0 also who wrote
 * each page in each barrier epoch, the master's stack frames at each
 * fork, and the call sites of flushes.  doc/design.md, "Statistics and
 * the sharing report".
 *
 * Off unless DSM_STATS is set or DSM_REPORT=sharing (and DSM_REPORT is not
 * off): each hook below is then one load of coh_sharing_on and a branch
 * not taken.
 *
 * Layer: coherence (internal).  The hooks are one-line calls in the
 * protocol's paths:
 *   coh_sharing_fault     end of the fault handler (signal context: the
 *                         slow part uses atomics and the clock only)
 *   coh_sharing_diff      a diff encoded at a release (page lock held)
 *   coh_sharing_migrated  a home move applied (page lock held)
 *   coh_sharing_atomic    a program atomic on sharable memory
 *   coh_sharing_epoch     node 0, a barrier's gathered write notices
 *   coh_sharing_fork      a fork's handoff (export on node 0, import on
 *                         the others), before the runtime stack
 *   coh_sharing_barrier   the end of a global barrier
 *   coh_sharing_sync_begin/end   around a flush (dsm_coh_sync)
 *   coh_sharing_atomic_end       after a program atomic (dsm_coh_atomic),
 *                                with sync_begin's clock
 * The report side (coh_report*.c) reads the tables at finalize through
 * coh_sharing_pages and the queries at the end of this header.
 */
#ifndef COH_SHARING_H
#define COH_SHARING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "dsm.h"
#include "sys_caller.h"

extern int coh_sharing_on;

/* Timeline buckets per page: a bucket covers 2^shift phases of the job (a
 * phase begins at each step: a parallel region's start or a barrier). */
#define COH_SHARING_BUCKETS 64
/* Words of a page (8 bytes each) in a touched/written mask. */
#define COH_SHARING_MASK_WORDS 8

/* What one node knows of one page. */
typedef struct coh_sharing_page {
    _Atomic uint32_t page;            /* index + 1; 0: slot unused */
    _Atomic uint32_t read_faults, write_faults;
    _Atomic uint32_t fetches;         /* copies fetched at a fault */
    _Atomic uint32_t diffs;
    _Atomic uint32_t atomics, atomic_loads;
    _Atomic uint32_t migrations;      /* moves of its home to this node */
    _Atomic uint64_t diff_bytes;
    _Atomic uint64_t fault_ns;
    _Atomic uint64_t threads_read, threads_wrote; /* bit t: OpenMP thread t
                                                     (63: 63 and above) */
    /* bit w of word w/64: the 8-byte word w of the page was the address
     * of a fault or an atomic (touched), or changed in a diff or was
     * written at a fault or by an atomic (written) */
    _Atomic uint64_t touched[COH_SHARING_MASK_WORDS];
    _Atomic uint64_t written[COH_SHARING_MASK_WORDS];
    _Atomic uint16_t timeline[COH_SHARING_BUCKETS];   /* events per bucket */
} coh_sharing_page_t;

/* Node 0: who wrote a page, barrier epoch by barrier epoch. */
typedef struct coh_sharing_epochs {
    uint32_t write_epochs;     /* epochs in which some node wrote it */
    uint32_t multi_epochs;     /* ... in which several nodes did */
    uint32_t writer_changes;   /* one writer, another than the last time */
    uint32_t away_epochs;      /* one writer, not the page's home */
    uint64_t writers;          /* bit n: node n wrote it (63: 63 and up) */
} coh_sharing_epochs_t;

dsm_status_t coh_sharing_setup(void);

void coh_sharing_fault_note(size_t index, uintptr_t addr, uint8_t state,
                            uint8_t flags, int access, uint64_t t0);
void coh_sharing_diff_note(size_t index, const void *diff, size_t len);
void coh_sharing_migrated_note(size_t index, int home);
void coh_sharing_atomic_note(size_t index, uintptr_t addr, int load);
void coh_sharing_epoch_note(const void *records, size_t len,
                            uint32_t nrecords);
void coh_sharing_fork_note(void);
void coh_sharing_barrier_note(void);
uint64_t coh_sharing_sync_begin_note(void);
void coh_sharing_sync_end_note(uint64_t t0);
void coh_sharing_atomic_end_note(uint64_t t0);

/* The fault handler's page, the address and the state and flags it found
 * under the page lock; t0 when it began. */
static inline void coh_sharing_fault(size_t index, uintptr_t addr,
                                     uint8_t state, uint8_t flags, int access,
                                     uint64_t t0)
{
    if (__builtin_expect(coh_sharing_on, 0))
        coh_sharing_fault_note(index, addr, state, flags, access, t0);
}

/* An encoded diff (coh_diff.h) of page index, len bytes. */
static inline void coh_sharing_diff(size_t index, const void *diff,
                                    size_t len)
{
    if (__builtin_expect(coh_sharing_on, 0))
        coh_sharing_diff_note(index, diff, len);
}

/* Page index's home moved to node home (every node applies each move). */
static inline void coh_sharing_migrated(size_t index, int home)
{
    if (__builtin_expect(coh_sharing_on, 0))
        coh_sharing_migrated_note(index, home);
}

/* A program atomic on addr in page index; load: it only reads. */
static inline void coh_sharing_atomic(size_t index, uintptr_t addr, int load)
{
    if (__builtin_expect(coh_sharing_on, 0))
        coh_sharing_atomic_note(index, addr, load);
}

/* Node 0: the write-notice records of a barrier's epoch (every node's),
 * validated (coh_wire_records). */
static inline void coh_sharing_epoch(const void *records, size_t len,
                                     uint32_t nrecords)
{
    if (__builtin_expect(coh_sharing_on, 0))
        coh_sharing_epoch_note(records, len, nrecords);
}

/* A parallel region starts (a fork's handoff). */
static inline void coh_sharing_fork(void)
{
    if (__builtin_expect(coh_sharing_on, 0))
        coh_sharing_fork_note();
}

/* A global barrier ended. */
static inline void coh_sharing_barrier(void)
{
    if (__builtin_expect(coh_sharing_on, 0))
        coh_sharing_barrier_note();
}

/* Around a flush: begin returns 0 when off. */
static inline uint64_t coh_sharing_sync_begin(void)
{
    return __builtin_expect(coh_sharing_on, 0) ? coh_sharing_sync_begin_note()
                                                : 0;
}

static inline void coh_sharing_sync_end(uint64_t t0)
{
    if (__builtin_expect(t0 != 0, 0))
        coh_sharing_sync_end_note(t0);
}

static inline void coh_sharing_atomic_end(uint64_t t0)
{
    if (__builtin_expect(t0 != 0, 0))
        coh_sharing_atomic_end_note(t0);
}

/* ---- for the report (finalize, main thread) ------------------------------ */

/* This node's page records: *n slots, some unused (page 0). */
const coh_sharing_page_t *coh_sharing_pages(size_t *n);
/* Events of pages that found no free record. */
uint64_t coh_sharing_untracked(void);
/* Steps seen and the timeline's bucket shift. */
uint32_t coh_sharing_steps(void);
unsigned coh_sharing_shift(void);
/* Measured time of every fault (the sum of the pages' fault_ns and that of
 * pages without a record). */
uint64_t coh_sharing_fault_ns(void);
/* Program atomics made, and their time. */
uint64_t coh_sharing_atomic_calls(void);
uint64_t coh_sharing_atomic_ns(void);
/* Node 0: the epoch table entry of page index (NULL: never written in a
 * barrier epoch, or not node 0); epochs: barrier epochs seen. */
const coh_sharing_epochs_t *coh_sharing_epochs_of(size_t index);
uint32_t coh_sharing_epoch_count(void);

/* Node 0: the master's stack frames at the forks (innermost first, from
 * the function that opened the region outwards), one chain per distinct
 * place a region was opened from. */
#define COH_SHARING_CHAIN_FRAMES 16
typedef struct coh_sharing_chain {
    int nframes;
    dsm_sys_frame_t frame[COH_SHARING_CHAIN_FRAMES];
    uint32_t forks;                  /* regions opened from here */
    uint32_t first_step, last_step;
} coh_sharing_chain_t;
const coh_sharing_chain_t *coh_sharing_chains(size_t *n);

/* This node's flush call sites. */
typedef struct coh_sharing_sync_site {
    uintptr_t pc;              /* return address into the caller */
    uintptr_t inside;          /* the runtime's outermost return address */
    uint64_t count, ns;
} coh_sharing_sync_site_t;
const coh_sharing_sync_site_t *coh_sharing_sync_sites(size_t *n);

#endif
