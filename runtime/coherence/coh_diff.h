/*
 * coh_diff.h - byte-exact differences between a page and its twin.
 *
 * Layer: coherence.  Pure functions on memory, async-signal-safe: the
 * writer encodes at release (any thread), the home applies in a message
 * handler; the fuzzer drives both.
 *
 * The unit of comparison is the 8-byte word, but a diff carries a byte mask
 * per changed word and the home writes only the bytes that changed: two
 * nodes that write neighbouring chars or ints of one word in the same
 * interval (a static schedule over a char array does) must not overwrite
 * each other's bytes with their twins' stale ones.
 *
 * Wire form, repeated: { u16 word_offset; u16 word_count;
 *                        u8 mask[word_count]; u8 words[word_count * 8] }
 * with runs in increasing, non-overlapping order.  When every byte of a run
 * changed, word_count carries DSM_DIFF_FULL_RUN and the masks are left out
 * (a page rewritten with new values costs little more than the page).
 */
#ifndef COH_DIFF_H
#define COH_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "dsm.h"

#define DSM_DIFF_WORD 8u
#define DSM_DIFF_FULL_RUN 0x8000u

/* The largest possible encoding of one page (every word changed). */
#define DSM_DIFF_MAX_ENCODED(page_size) \
    (4u + (page_size) / DSM_DIFF_WORD + (page_size))

/* Encode into out (capacity DSM_DIFF_MAX_ENCODED); returns bytes written,
 * 0 when page and twin are equal. */
size_t dsm_diff_encode(const void *page, const void *twin, size_t page_size,
                       void *out);
/* The same, for a caller that only wants a diff of at most max bytes:
 * returns max + 1 as soon as the encoding is known to be longer (out is
 * then not a valid encoding), without scanning the rest of the page.  out
 * still has capacity DSM_DIFF_MAX_ENCODED. */
size_t dsm_diff_encode_within(const void *page, const void *twin,
                              size_t page_size, void *out, size_t max);
/* DSM_OK when diff (len bytes) is a well-formed encoding for a page of
 * page_size bytes, DSM_ERR_PROTOCOL otherwise. */
dsm_status_t dsm_diff_check(size_t page_size, const void *diff, size_t len);
/* Apply an encoded diff to page; DSM_ERR_PROTOCOL (page untouched) when the
 * encoding is malformed or runs outside the page.  *bytes (may be NULL)
 * receives the number of bytes written. */
dsm_status_t dsm_diff_apply(void *page, size_t page_size, const void *diff,
                            size_t len, size_t *bytes);

#endif
