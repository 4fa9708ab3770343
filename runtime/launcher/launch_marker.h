/*
 * launch_marker.h - finds one fixed line, an agent's acknowledgement,
 * inside a node's output stream and takes it out.
 *
 * Layer: launcher.  Pure functions on caller-owned state; dsmrun's main
 * thread (launch_remote.c), the agent (launch_agent.c) and
 * tests/launcher/test_marker.c.
 *
 * A remote agent answers a hang-report request by writing
 * "dsmrun-agent reported <nonce>\n" to the standard output it shares with
 * its node (launch_agent.h).  The node may be in the middle of a line, so
 * the marker can sit anywhere in the stream and arrive split over reads;
 * the nonce, fresh per request, keeps a program's output from forging it.
 */
#ifndef LAUNCH_MARKER_H
#define LAUNCH_MARKER_H

#include <stddef.h>
#include <stdint.h>

#define DSM_AGENT_LINE_REPORTED "dsmrun-agent reported "
/* prefix, 16 hex digits, newline, NUL */
#define DSM_LAUNCH_MARKER_MAX (sizeof DSM_AGENT_LINE_REPORTED + 17)

/* The marker line for `nonce`, NUL-terminated; returns its length. */
size_t dsm_launch_marker_format(uint64_t nonce,
                                char out[DSM_LAUNCH_MARKER_MAX]);

typedef void (*dsm_launch_marker_out_fn)(void *arg, const char *data,
                                         size_t len);

/* Passes buf[0, len) to `out` in order, except every whole occurrence of
 * `marker` (each counted in *found).  Unless `at_end`, a tail that may be
 * the start of a marker is not passed: its length is returned, and the
 * caller puts those bytes in front of the next read. */
size_t dsm_launch_marker_scan(const char *marker, const char *buf,
                              size_t len, int at_end,
                              dsm_launch_marker_out_fn out, void *arg,
                              int *found);

#endif
