/*
 * launch_marker.c - takes agents' acknowledgement lines out of a node's
 * output.  Layer: launcher.  See launch_marker.h.
 */
#include "launch_marker.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

size_t dsm_launch_marker_format(uint64_t nonce,
                                char out[DSM_LAUNCH_MARKER_MAX])
{
    int n = snprintf(out, DSM_LAUNCH_MARKER_MAX, "%s%016" PRIx64 "\n",
                     DSM_AGENT_LINE_REPORTED, nonce);
    return n > 0 ? (size_t)n : 0;
}

/* Length of the longest tail of buf[0, len) that is a proper prefix of
 * the marker. */
static size_t partial_tail(const char *marker, size_t marker_len,
                           const char *buf, size_t len)
{
    size_t most = len < marker_len - 1 ? len : marker_len - 1;
    for (size_t tail = most; tail > 0; tail--)
        if (!memcmp(buf + len - tail, marker, tail))
            return tail;
    return 0;
}

size_t dsm_launch_marker_scan(const char *marker, const char *buf,
                              size_t len, int at_end,
                              dsm_launch_marker_out_fn out, void *arg,
                              int *found)
{
    size_t marker_len = strlen(marker);
    for (;;) {
        const char *hit = memmem(buf, len, marker, marker_len);
        if (!hit)
            break;
        size_t before = (size_t)(hit - buf);
        if (before)
            out(arg, buf, before);
        (*found)++;
        buf += before + marker_len;
        len -= before + marker_len;
    }
    size_t held = at_end ? 0 : partial_tail(marker, marker_len, buf, len);
    if (len > held)
        out(arg, buf, len - held);
    return held;
}
