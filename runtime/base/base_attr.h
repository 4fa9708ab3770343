/*
 * base_attr.h - compiler attributes the layer interfaces share.
 * Layer: base.  Header only; any context.
 */
#ifndef BASE_ATTR_H
#define BASE_ATTR_H

/* On a function returning dsm_status_t whose failure the caller must
 * handle: ignoring the status is a compile-time warning.  A caller that
 * truly cannot act on it says so with a cast to void and a comment. */
#define DSM_MUST_CHECK __attribute__((warn_unused_result))

#endif
