/*
 * tp_thread.h - the progress thread (tp_thread.c).
 *
 * Layer: transport (internal).
 */
#ifndef TP_THREAD_H
#define TP_THREAD_H

#include "transport.h"

dsm_status_t tp_thread_start(void);
void tp_thread_stop(void);

#endif
