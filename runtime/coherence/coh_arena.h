/*
 * coh_arena.h - the allocator of one node's arena of the sharable heap.
 *
 * Layer: coherence.  An arena is an address range [lo, hi) of the sharable
 * region whose pages are homed at one node; that node serves dsm_malloc and
 * friends from it without any network traffic.  The allocator never reads or
 * writes the memory it manages (a touch could fault and fetch a page): all of
 * its metadata lives out of band, in private memory mapped with mmap (never
 * malloc), and its size is bounded by the number of pages in the arena.
 *
 * Small requests (up to DSM_ARENA_SMALL_MAX bytes) come from size-class slabs;
 * larger ones are rounded up to whole pages and page-aligned, so a big array
 * never shares a page with other data.
 *
 * Entry points: dsm_arena_create/destroy (start-up and shut-down), then
 * dsm_arena_alloc, _free, _usable_size, _resize_in_place, _contains,
 * _pages_in_block, _usage and the test helper _check.  Called from application threads (any number at
 * once, one mutex per arena); never from the fault handler or a signal handler.
 */
#ifndef COH_ARENA_H
#define COH_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "dsm.h"

/* Requests above this many bytes get whole pages of their own. */
#define DSM_ARENA_SMALL_MAX ((size_t)2048)

typedef struct dsm_arena dsm_arena_t;

/* An allocator over [lo, hi); both page-aligned, lo non-zero, lo < hi, at
 * most 2^29 - 1 pages (2 TiB).  DSM_ERR_INVALID for a bad range,
 * DSM_ERR_NOMEM if the metadata cannot be mapped.  Costs O(1) whatever the
 * size: the metadata (60 bytes of address space per page) is touched lazily. */
dsm_status_t dsm_arena_create(uintptr_t lo, uintptr_t hi, dsm_arena_t **out);
void dsm_arena_destroy(dsm_arena_t *arena);

/* A block of at least size bytes (size 0 gives a minimal block) aligned to
 * alignment, a power of two; alignments below 16 are raised to 16.
 * DSM_ERR_INVALID for an alignment that is not a power of two, DSM_ERR_NOMEM
 * when no block fits. */
dsm_status_t dsm_arena_alloc(dsm_arena_t *arena, size_t size,
                             size_t alignment, uintptr_t *out);

/* DSM_ERR_INVALID for anything but a live block returned by this arena
 * (a double free included); the arena is then left unchanged. */
dsm_status_t dsm_arena_free(dsm_arena_t *arena, uintptr_t ptr);

/* Bytes usable at ptr (>= the size asked for); DSM_ERR_INVALID as for free. */
dsm_status_t dsm_arena_usable_size(dsm_arena_t *arena, uintptr_t ptr,
                                   size_t *out);

/* How many of the max pages from the page at addr (page-aligned, inside
 * the arena) belong to the same block or free run as that page: the count
 * stops before the next block or run.  1 at least. */
size_t dsm_arena_pages_in_block(dsm_arena_t *arena, uintptr_t addr,
                                size_t max);

/* The live block holding addr (anywhere inside it): its start and usable
 * size.  DSM_ERR_INVALID when addr is in no live block (free, or a free
 * slot of a slab, or outside the arena). */
dsm_status_t dsm_arena_block_of(dsm_arena_t *arena, uintptr_t addr,
                                uintptr_t *start, size_t *usable);

/* Non-zero when ptr lies in [lo, hi), allocated or not. */
int dsm_arena_contains(const dsm_arena_t *arena, uintptr_t ptr);

/* Grow or shrink the block at ptr without moving it.  DSM_ERR_NOMEM when it
 * cannot (the caller then allocates, copies and frees), DSM_ERR_INVALID for a
 * pointer free would refuse. */
dsm_status_t dsm_arena_resize_in_place(dsm_arena_t *arena, uintptr_t ptr,
                                       size_t new_size);

/* bytes_in_use and blocks_in_use count live blocks by their usable size;
 * bytes_free is the total and largest_free the longest run of pages that no
 * slab or block holds (free slots inside slabs are counted in neither). */
typedef struct dsm_arena_usage {
    size_t bytes_in_use;
    size_t blocks_in_use;
    size_t bytes_free;
    size_t largest_free;
} dsm_arena_usage_t;
void dsm_arena_usage(dsm_arena_t *arena, dsm_arena_usage_t *out);

/* Invariant checker for tests: walks all metadata (O(pages)); 1 when
 * consistent, 0 otherwise (the first violation is logged). */
int dsm_arena_check(dsm_arena_t *arena);

#endif
