/*
 * tp_am.h - active messages: registry, send, receive, self-sends
 * (tp_am.c).
 *
 * Layer: transport (internal).
 */
#ifndef TP_AM_H
#define TP_AM_H

#include <stddef.h>

#include "tp_source.h"
#include "transport.h"

dsm_status_t tp_am_open(void);            /* handlers on the worker */
void tp_am_close(void);                   /* drop queued messages */
/* Progress sources: run the handlers of queued self-sends; hand sends
 * queued by handlers to UCX or the lanes (may wait for room in a lane, so
 * never from a handler). */
extern const tp_source_t tp_am_local_source, tp_am_deferred_source;
/* Run the handler of a message that arrived outside UCX (a lane record),
 * under the handler lock; a message id without a handler ends the job. */
void tp_am_dispatch(int src, unsigned id, const void *data, size_t len);

#endif
