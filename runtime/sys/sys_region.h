/*
 * sys_region.h - the sharable region's two views of one memfd.
 *
 * Layer: sys.  The application view sits at a fixed address (the same on
 * every node) and carries the page protections the coherence protocol sets;
 * the runtime view is always readable and writable, so the runtime can
 * install a fetched page or apply a diff while other threads of the node
 * keep running on the application view without seeing a half-written page.
 *
 * Core dumps (sys_dump.h): the runtime view never appears in one, and the
 * application windows show only the memfd's data, not its holes.
 *
 * dsm_sys_region_create/destroy: start-up and shut-down only.
 * dsm_sys_protect: async-signal-safe, callable from the fault handler.
 */
#ifndef SYS_REGION_H
#define SYS_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "dsm.h"

#define DSM_PAGE_SHIFT 12
#define DSM_PAGE_SIZE ((size_t)1 << DSM_PAGE_SHIFT)

typedef struct dsm_region {
    size_t size;        /* bytes of the memfd, a multiple of DSM_PAGE_SIZE */
    char *rt;           /* runtime view of all of it, always read-write */
    int memfd;
} dsm_region_t;

/* Create the memfd of size bytes and its runtime view. */
dsm_status_t dsm_sys_region_create(size_t size, dsm_region_t *out);
/* Map [offset, offset+len) of the memfd at the fixed address base as an
 * application window, PROT_NONE.  A collision with an existing mapping is
 * DSM_ERR_COLLISION with an error naming both ranges. */
dsm_status_t dsm_sys_region_map_window(dsm_region_t *region, uintptr_t base,
                                       size_t len, size_t offset);
/* Adopt existing memory (the program's sharable globals): copy the contents
 * of [base, base+len) into the memfd at offset, then map the memfd over it,
 * read-write. */
dsm_status_t dsm_sys_region_adopt_window(dsm_region_t *region, uintptr_t base,
                                         size_t len, size_t offset);
/* Unmap the runtime view and close the memfd; windows stay mapped. */
void dsm_sys_region_destroy(dsm_region_t *region);

/* Protection of the application view: DSM_PROT_NONE, _READ, _RW. */
enum { DSM_PROT_NONE = 0, DSM_PROT_READ = 1, DSM_PROT_RW = 3 };
int dsm_sys_protect(uintptr_t addr, size_t len, int prot);
/* Map [offset, offset+len) of the memfd at addr again, over whatever is
 * mapped there (another file's pages), with protection prot.  0 or -1
 * (errno preserved).  Any thread, the fault handler included. */
int dsm_sys_region_remap(const dsm_region_t *region, uintptr_t addr,
                         size_t len, size_t offset, int prot);
/* Is all of [addr, addr+len) mapped?  (A failed mmap over a range may
 * have removed what was there.)  Any thread, the fault handler included. */
int dsm_sys_mapped(uintptr_t addr, size_t len);

/* Does [addr, addr+len) (len 0: the byte at addr) overlap an application
 * window this process mapped (windows are never forgotten: the runtime
 * keeps them to the end)?  A few compares; any thread, the fault handler
 * included. */
int dsm_sys_sharable(const void *addr, size_t len);

/* Find a mapping of this process that overlaps [lo, hi); returns 1 and its
 * range and name when there is one.  Start-up only (reads /proc). */
int dsm_sys_find_overlap(uintptr_t lo, uintptr_t hi, uintptr_t *map_lo,
                         uintptr_t *map_hi, char *name, size_t namelen);

#endif
