/*
 * coh_diff.h - word-granular comparison of a page with its twin.
 *
 * Layer: coherence.  Pure functions on memory, async-signal-safe: used at
 * release (any thread) and when a lock acquire must publish a dirty page.
 *
 * A diff is a sequence of runs of changed 8-byte words.  dsm_diff_runs
 * reports runs through a callback so the caller can put each run straight
 * from the page to the home (no copy); dsm_diff_encode/dsm_diff_apply give a
 * compact, bounds-checked wire form (used for messages and by the fuzzer).
 */
#ifndef COH_DIFF_H
#define COH_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "dsm.h"

#define DSM_DIFF_WORD 8u

/* Calls emit(offset, length, arg) for every maximal run of changed words,
 * in increasing offset order; returns the number of runs. */
typedef void (*dsm_diff_emit_t)(size_t offset, size_t len, void *arg);
size_t dsm_diff_runs(const void *page, const void *twin, size_t page_size,
                     dsm_diff_emit_t emit, void *arg);

/* Wire form: repeated { u16 word_offset; u16 word_count; words... }.
 * The largest possible encoding of one page. */
#define DSM_DIFF_MAX_ENCODED(page_size) ((page_size) + (page_size) / 2)
/* Encode into out (capacity DSM_DIFF_MAX_ENCODED); returns bytes written,
 * 0 when page and twin are equal. */
size_t dsm_diff_encode(const void *page, const void *twin, size_t page_size,
                       void *out);
/* Apply an encoded diff to page; DSM_ERR_PROTOCOL (page untouched) when the
 * encoding is malformed or runs outside the page. */
dsm_status_t dsm_diff_apply(void *page, size_t page_size, const void *diff,
                            size_t len);

#endif
