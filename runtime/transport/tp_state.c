/*
 * tp_state.c - the transport's process-wide state (tp_state.h).
 *
 * Layer: transport.
 */
#include "tp_state.h"

tp_state_t tp = {.worker_efd = -1, .wake_fd = -1, .wake_wr = -1};
