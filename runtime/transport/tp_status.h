/*
 * tp_status.h - UCX status codes to dsm_status_t (tp_status.c).
 *
 * Layer: transport (internal).
 */
#ifndef TP_STATUS_H
#define TP_STATUS_H

#include <ucp/api/ucp.h>

#include "transport.h"

dsm_status_t tp_status(ucs_status_t status);

#endif
