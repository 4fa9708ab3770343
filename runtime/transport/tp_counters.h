/*
 * tp_counters.h - the transport's statistics (tp_counters.c).
 *
 * Layer: transport (internal).
 */
#ifndef TP_COUNTERS_H
#define TP_COUNTERS_H

#include <stddef.h>

#include "transport.h"

void tp_count_am(unsigned id, size_t bytes);
void tp_count_get(size_t bytes);
void tp_count_put(size_t bytes);
void tp_count_atomic(void);
void tp_counters_reset(void);

#endif
