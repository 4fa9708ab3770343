/*
 * tp_source.h - the progress registry: what one progress round polls.
 *
 * Layer: transport (internal).  Each module that receives or queues work
 * for progress (the UCX worker, the same-host lanes, self-sends, sends
 * deferred by handlers) describes it as a source with a poll function;
 * dsm_tp_init adds them in the order a round runs them, before anything
 * progresses, and dsm_tp_finalize clears them after the last progress
 * call.  tp_progress_once and the progress thread only iterate them.
 *
 * tp_sources_run may be called from any thread, the fault handler
 * included: it takes no lock and allocates nothing (the poll functions
 * promise the same).
 */
#ifndef TP_SOURCE_H
#define TP_SOURCE_H

typedef struct tp_source {
    const char *name;        /* for messages */
    int (*poll)(void);       /* one look; returns the events it handled */
    unsigned flags;          /* TP_SOURCE_* */
} tp_source_t;

/* Needs the UCX worker: not added on a node without one (one node). */
#define TP_SOURCE_WORKER  1u
/* Reads what peers send (the worker, the lanes): a parked progress thread
 * leaves it to the application threads that poll (tp_thread.c). */
#define TP_SOURCE_INBOUND 2u

#define TP_SOURCES_MAX 8

/* Add src (static storage) at the end of the round; init only. */
void tp_sources_add(const tp_source_t *src);
/* Remove every source; finalize only. */
void tp_sources_clear(void);
/* One round: poll every source in order except those with a flag in
 * skip; returns the events handled. */
int tp_sources_run(unsigned skip);

#endif
