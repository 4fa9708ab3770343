/*
 * coh_check.h - the coherence layer's invariant checks, compiled in by
 * meson's -Dinvariants=true (DSM_INVARIANTS) and to nothing otherwise.
 * What they check is the page-state table of doc/design.md: the rules
 * that tie a page's state, flags, home and the protection of its
 * application view together, the dirty list, and the published interval
 * log.  A violation ends the node with a line naming the rule and the
 * page (dsm_invariant_failed), instead of the livelock or silent stale
 * read a corrupted entry would otherwise cause.
 *
 * Layer: coherence (internal).
 *   coh_check_prot   the protection the application view of pages
 *                    [index, index+n) now has (every mprotect and mapping
 *                    of the view reports here); async-signal-safe
 *   coh_check_page   one page, its page lock held; async-signal-safe
 *   coh_check_touch  a page changed without its lock (the share handler):
 *                    the next table scan checks it
 *   coh_check_share_begin / _end  bracket the share handler's lock-free
 *                    change of home pages: a per-page check that overlaps
 *                    it accepts the one transient it makes (state and
 *                    protection changed one after the other)
 *   coh_check_table  every page changed since the last scan (which the
 *                    per-page checks saw as they changed), taking each
 *                    page's lock, and the dirty list: where the node's
 *                    other threads wait (a barrier's end), protocol mutex
 *                    held
 *   coh_check_dirty  the dirty list alone (takes its lock)
 *   coh_check_log    the interval just published, protocol mutex held
 */
#ifndef COH_CHECK_H
#define COH_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "base_log.h"
#include "dsm.h"

#if DSM_INVARIANTS_ON
dsm_status_t coh_check_setup(void);
void coh_check_prot(size_t index, size_t n, int prot);
void coh_check_page(size_t index, const char *where);
void coh_check_touch(size_t index);
void coh_check_share_begin(void);
void coh_check_share_end(void);
void coh_check_table(const char *where);
void coh_check_dirty(const char *where);
void coh_check_log(uint32_t seq);
#else
static inline dsm_status_t coh_check_setup(void) { return DSM_OK; }
static inline void coh_check_prot(size_t index, size_t n, int prot) {}
static inline void coh_check_page(size_t index, const char *where) {}
static inline void coh_check_touch(size_t index) {}
static inline void coh_check_share_begin(void) {}
static inline void coh_check_share_end(void) {}
static inline void coh_check_table(const char *where) {}
static inline void coh_check_dirty(const char *where) {}
static inline void coh_check_log(uint32_t seq) {}
#endif

#endif
