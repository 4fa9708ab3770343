/*
 * tp_progress.h - bounded waits and sleeping for events (tp_progress.c).
 *
 * Layer: transport (internal).  Below the modules that wait (lanes, active
 * messages, RMA, liveness, the progress thread): what a wait or a sleep
 * needs from them (the lanes' CPU sharing and doorbell, the liveness
 * sockets) it finds in the progress registry (tp_source.h), never by
 * calling them.
 */
#ifndef TP_PROGRESS_H
#define TP_PROGRESS_H

#include <stdint.h>

#include <ucp/api/ucp.h>

#include "tp_state.h"

/* Non-zero while this thread runs an active-message handler (tp_am.c
 * counts it; tp_check_not_in_handler reads it). */
extern TP_THREAD_LOCAL int tp_in_handler;

/* A wait reads the clock only every CHECK_EVERY rounds, the first time
 * after CHECK_EVERY rounds, so that a short wait costs no clock read; its
 * deadline counts from that first read. */
typedef struct tp_wait {
    uint64_t start_ns;          /* first clock read; 0 before it */
    uint64_t last_ns;           /* latest clock read */
    uint64_t deadline_ns;
    uint64_t next_check_ns;
    unsigned spins;
} tp_wait_t;

/* Wait lengths after which a wait yields (tp_progress.c): the CPU is
 * shared with the job's own threads, or not. */
#define TP_YIELD_SHARED_NS 5000ull
#define TP_YIELD_OWN_CPU_NS 1000000ull

/* A node whose threads computed less than this between two waits is
 * synchronising: the progress thread leaves the worker to its waits. */
#define TP_SYNC_GAP_NS 200000ull

void tp_wait_begin(tp_wait_t *w);
/* Call each round; ends the job when DSM_TIMEOUT has passed. */
void tp_wait_check(tp_wait_t *w, const char *what, int rank);
void tp_wait_end(tp_wait_t *w);
/* Wait for a UCX request (or immediate result) and release it. */
dsm_status_t tp_wait_request(ucs_status_ptr_t request, const char *what,
                             int rank);
/* Refuse blocking calls from inside a handler. */
void tp_check_not_in_handler(const char *call);
/* A thread begins or ends polling (a wait, or a polling loop of a layer
 * above: dsm_tp_poll_begin); waited_ns: how long it polled, 0 if not
 * measured. */
void tp_poller_enter(void);
void tp_poller_leave(uint64_t waited_ns);
/* Sleep in poll(2) on the wake pipe, the descriptors the registered
 * sources watch (the bootstrap sockets) and, with arm_worker, the armed
 * worker's wake-up descriptor, until something happens or timeout_us
 * microseconds pass (-1: no limit); hands readable descriptors to their
 * source.  For threads that wait without spinning: the progress thread,
 * and the start-up and shut-down barriers. */
void tp_sleep_for_events(long timeout_us, int arm_worker);
void tp_wake_thread(void);

#endif
