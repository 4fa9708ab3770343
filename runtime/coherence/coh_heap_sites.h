/*
 * coh_heap_sites.h - where the program allocated each block of this node's
 * arena of the sharable heap: the call site of its malloc (or calloc,
 * realloc, aligned_alloc, omp_alloc, a task's allocation...), so that the
 * sharing report can name a heap array by the file and line that created
 * it.  Recorded only while the sharing accounting is on (coh_sharing.h).
 *
 * Per 16-byte granule of the arena one 32-bit entry, written at the first
 * granule of each block allocated: the call site's number (16 bits) and
 * the block's size (16 bits: granules up to 2 KiB, pages above).  It is
 * not cleared at free, so a block freed before the report (arrays freed at
 * the end of main) is still named.  The call sites themselves are kept in
 * a table of up to 4095 distinct sites.
 *
 * Layer: coherence.  coh_heap_site_record: the allocating thread, inside
 * dsm_aligned_alloc (one call); coh_heap_sites_lookup: the report, at
 * finalize.  Never the fault handler.
 */
#ifndef COH_HEAP_SITES_H
#define COH_HEAP_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "coh_sharing.h"
#include "dsm.h"

/* The arena [lo, hi) of this node (only when the accounting is on). */
dsm_status_t coh_heap_sites_setup(uintptr_t lo, uintptr_t hi);

void coh_heap_site_record_slow(uintptr_t block, size_t size);

/* A block of size bytes was allocated at block: note its call site. */
static inline void coh_heap_site_record(void *block, size_t size)
{
    if (__builtin_expect(coh_sharing_on, 0) && block)
        coh_heap_site_record_slow((uintptr_t)block, size);
}

typedef struct coh_heap_site {
    uintptr_t start;        /* the block */
    size_t size;            /* bytes asked for, rounded as recorded */
    uintptr_t outside;      /* return address into the allocating code */
    uintptr_t inside;       /* the runtime's outermost return address */
} coh_heap_site_t;

/* The block recorded at or before addr that covers it: the live block
 * holding it when the caller knows one ([live_start, +live_size), or
 * live_size 0), else the last block allocated there.  0 and *out, or -1. */
int coh_heap_sites_lookup(uintptr_t addr, uintptr_t live_start,
                          size_t live_size, coh_heap_site_t *out);

/* coh_heap.c: the block of this node's arena at addr, live or the last
 * one recorded there, with its site.  0 and *out, or -1. */
int coh_heap_describe(uintptr_t addr, coh_heap_site_t *out);

#endif
