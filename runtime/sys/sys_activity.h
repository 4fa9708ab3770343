/*
 * sys_activity.h - records what the calling thread is doing on the job's
 * activity board (base_activity.h), which dsmrun reads when a node dies
 * and for the hang report (--timeout, SIGQUIT).
 *
 * Layer: sys.  dsm_activity_attach: start-up, once.  Every other call may
 * be made from any thread, the fault handler and active-message handlers
 * included: they only store to the thread's own entry (initial-exec TLS
 * pointer, a slot taken with one atomic add on first use); no malloc, no
 * stdio, no lock.  Without a board (no DSM_ACTIVITY_FD: a node not started
 * by dsmrun, or on another host) the entry is thread-local memory and
 * nobody reads it.
 */
#ifndef SYS_ACTIVITY_H
#define SYS_ACTIVITY_H

#include <stdint.h>

#include "base_activity.h"

/* Map this node's block of the board named by DSM_ACTIVITY_FD, if any. */
void dsm_activity_attach(int rank);

/* The calling thread's saved state, to restore after a nested activity. */
typedef struct dsm_activity_saved {
    uint32_t kind;
    int32_t peer;
    uint64_t arg, arg2;
    uint32_t segment;
    uint32_t about;
    const char *what;
} dsm_activity_saved_t;

void dsm_activity_computing(void);
void dsm_activity_starting(void);
void dsm_activity_finishing(void);
/* Waiting for `what` (a constant string; at most DSM_ACTIVITY_WHAT_MAX - 1
 * characters are kept) from node peer (-1: no particular node). */
void dsm_activity_wait_begin(dsm_activity_saved_t *saved, const char *what,
                             int peer);
/* The same, naming what the wait is about (about: dsm_activity_about_t,
 * arg and arg2 as base_activity.h says). */
void dsm_activity_wait_about(dsm_activity_saved_t *saved, const char *what,
                             int peer, uint32_t about, uint64_t arg,
                             uint64_t arg2);
/* A transfer to or from node peer (`what`: "a put to", "a get from")
 * has not completed: recorded only when the thread is computing or has
 * recorded nothing, so a fetch or a wait that says more is kept.  Returns
 * whether it recorded; only then call dsm_activity_end. */
int dsm_activity_transfer_begin(dsm_activity_saved_t *saved, const char *what,
                                int peer);
/* Reading len bytes at offset of segment seg of node peer. */
void dsm_activity_fetch_begin(dsm_activity_saved_t *saved, int peer,
                              uint32_t seg, uint64_t offset);
void dsm_activity_end(const dsm_activity_saved_t *saved);
/* A DSM lock was granted to (delta +1) or released by (-1) this thread. */
void dsm_activity_lock(uint64_t lock_id, int delta);
/* The calling thread's number in its node (the fork-join layer's), for
 * the hang report; threads that never call it are runtime threads. */
void dsm_activity_thread_number(int number);

#endif
