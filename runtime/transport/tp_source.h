/*
 * tp_source.h - the progress registry: what one progress round polls, and
 * what a wait or a sleep asks of the modules above tp_progress.c.
 *
 * Layer: transport (internal), below tp_progress.c.  Each module that
 * receives or queues work for progress (the UCX worker, the same-host
 * lanes, self-sends, sends deferred by handlers, the bootstrap sockets)
 * describes it as a source: a poll function, and hooks for what the
 * waits and sleeps of tp_progress.c need from it.  dsm_tp_init adds them
 * in the order a round runs them, before anything progresses, and
 * dsm_tp_finalize clears them after the last progress call.
 * tp_progress_once, the waits and the progress thread only iterate them,
 * so that the modules that wait (lanes, liveness, active messages) sit
 * above tp_progress.c and nothing below calls up.
 *
 * Every function here may be called from any thread, the fault handler
 * included: none takes a lock or allocates (the poll functions and hooks
 * promise the same), save tp_sources_add and tp_sources_clear.
 */
#ifndef TP_SOURCE_H
#define TP_SOURCE_H

#include <poll.h>

typedef struct tp_source {
    const char *name;        /* for messages */
    /* One look each round; returns the events it handled.  NULL: nothing
     * to poll (a source of hooks only). */
    int (*poll)(void);
    unsigned flags;          /* TP_SOURCE_* */
    /* Optional hooks (NULL: none).  Sleeping in poll(2): the descriptors
     * to watch, with a tag each (at most tp.size descriptors, from one
     * source at most), and what to do when the one tagged tag is
     * readable. */
    int (*watch)(struct pollfd *fds, int *tags);
    void (*readable)(int tag);
    /* The node is about to sleep: ask senders to ring the wake pipe;
     * non-zero: work already waits (the source undid its part: do not
     * sleep).  sleep_end: awake again. */
    int (*sleep_begin)(void);
    void (*sleep_end)(void);
    /* A long wait of this node polls on cpu (-1: no longer); may a peer
     * wait for that very CPU (the waits' yield decision)? */
    void (*waiting_on)(int cpu);
    int (*cpu_shared)(int cpu);
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
/* One round: every source, in the order dsm_tp_init added them: UCX
 * worker, lanes, self-sends, deferred sends.  What every wait calls. */
int tp_progress_once(void);

/* The hooks of every source that has them, in order. */
int tp_sources_watch(struct pollfd *fds, int *tags);
void tp_sources_readable(int tag);
int tp_sources_sleep_begin(void);
void tp_sources_sleep_end(void);
void tp_sources_waiting_on(int cpu);
int tp_sources_cpu_shared(int cpu);

#endif
