/*
 * base_status.c - text for dsm_status_t codes.
 * Layer: base.  Callable from anywhere, including the fault handler.
 */
#include "dsm.h"

const char *dsm_status_string(dsm_status_t status)
{
    switch (status) {
    case DSM_OK:              return "success";
    case DSM_ERR_INVALID:     return "invalid argument or configuration";
    case DSM_ERR_NOMEM:       return "out of memory";
    case DSM_ERR_IO:          return "system call failed";
    case DSM_ERR_TRANSPORT:   return "transport (UCX) error";
    case DSM_ERR_TIMEOUT:     return "timed out waiting for a peer";
    case DSM_ERR_PEER_FAILED: return "a peer node failed";
    case DSM_ERR_REFUSED:     return "connection refused (bad job token)";
    case DSM_ERR_PROTOCOL:    return "malformed protocol message";
    case DSM_ERR_BUSY:        return "resource busy";
    case DSM_ERR_STATE:       return "invalid in the current state";
    case DSM_ERR_COLLISION:   return "sharable region collides with an existing mapping";
    }
    return "unknown status";
}
