/*
 * tp_status.c - UCX status codes become dsm_status_t here, and nowhere
 * else: the layers above never see a ucs_status_t.
 *
 * Layer: transport.  Entry point: tp_status.  Pure function, callable from
 * anywhere, the fault handler included.
 */
#include "tp_status.h"

dsm_status_t tp_status(ucs_status_t status)
{
    switch (status) {
    case UCS_OK:
        return DSM_OK;
    case UCS_ERR_NO_MEMORY:
    case UCS_ERR_EXCEEDS_LIMIT:
        return DSM_ERR_NOMEM;
    case UCS_ERR_INVALID_PARAM:
    case UCS_ERR_INVALID_ADDR:
    case UCS_ERR_OUT_OF_RANGE:
    case UCS_ERR_UNSUPPORTED:
        return DSM_ERR_INVALID;
    case UCS_ERR_IO_ERROR:
        return DSM_ERR_IO;
    case UCS_ERR_TIMED_OUT:
        return DSM_ERR_TIMEOUT;
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_REJECTED:
    case UCS_ERR_NOT_CONNECTED:
    case UCS_ERR_CANCELED:
        return DSM_ERR_PEER_FAILED;
    case UCS_ERR_BUSY:
        return DSM_ERR_BUSY;
    default:
        return DSM_ERR_TRANSPORT;
    }
}
