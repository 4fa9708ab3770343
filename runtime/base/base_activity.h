/*
 * base_activity.h - the activity board: what each thread of each node is
 * doing right now, in memory shared between the nodes and dsmrun, so that
 * when a node dies dsmrun can say what it was doing.
 *
 * Layer: base (the layout and its wording are shared by the node side in
 * sys/sys_activity.c and by the launcher).  dsm_activity_describe uses
 * snprintf: call it from dsmrun or tests, never from a signal handler.
 *
 * Layout: one block of DSM_ACTIVITY_BLOCK bytes per node (rank order),
 * each holding DSM_ACTIVITY_SLOTS entries, one per thread of the node that
 * has recorded something (slots are taken in order of first use).  A
 * writer changes only its own entry, with plain stores: the reader looks
 * only at a node that has died or is stopped, or tolerates a torn entry
 * (the hang report reads running nodes).
 */
#ifndef BASE_ACTIVITY_H
#define BASE_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

typedef enum dsm_activity_kind {
    DSM_ACTIVITY_UNUSED = 0,   /* slot never used */
    DSM_ACTIVITY_STARTING,     /* before the transport is up */
    DSM_ACTIVITY_COMPUTING,    /* running program code */
    DSM_ACTIVITY_WAITING,      /* waiting for `what` (from node `peer`) */
    DSM_ACTIVITY_FETCHING,     /* reading node `peer`'s memory at `arg` */
    DSM_ACTIVITY_FINISHING,    /* in the shut-down */
    DSM_ACTIVITY_KIND_COUNT
} dsm_activity_kind_t;

/* What a wait is about, beside its text: the meaning of arg and arg2. */
typedef enum dsm_activity_about {
    DSM_ACTIVITY_ABOUT_NONE = 0,
    DSM_ACTIVITY_ABOUT_EPOCH,        /* arg: the cluster barrier's epoch */
    DSM_ACTIVITY_ABOUT_LOCK,         /* arg: lock id, as last_lock */
    DSM_ACTIVITY_ABOUT_PAGE,         /* arg: page index in the sharable space */
    DSM_ACTIVITY_ABOUT_ATOMIC,       /* arg: byte offset in the sharable space */
    DSM_ACTIVITY_ABOUT_PARTIAL,      /* arg: parallel region, arg2: reduction */
    DSM_ACTIVITY_ABOUT_TEAM_BARRIER, /* arg: parallel region, arg2: barrier */
    DSM_ACTIVITY_ABOUT_WORD,         /* arg: offset of a control word,
                                        arg2: the value awaited */
    DSM_ACTIVITY_ABOUT_TRANSFER,     /* what names a transfer to or from
                                        peer ("a put to"): no argument */
    DSM_ACTIVITY_ABOUT_COUNT
} dsm_activity_about_t;

#define DSM_ACTIVITY_WHAT_MAX 64

typedef struct dsm_activity_entry {
    uint32_t kind;           /* dsm_activity_kind_t */
    int32_t peer;            /* the node awaited or read, -1 if none */
    uint64_t arg;            /* FETCHING: byte offset in the segment;
                                WAITING: see about */
    uint32_t segment;        /* FETCHING: 0 sharable space, 1 control */
    uint32_t locks_held;     /* DSM locks this thread holds */
    uint64_t last_lock;      /* the latest of them (manager + 1) << 32 | index */
    uint64_t changes;        /* bumped at every change, for observers */
    char what[DSM_ACTIVITY_WHAT_MAX];   /* WAITING: NUL-terminated */
    uint32_t about;          /* WAITING: dsm_activity_about_t */
    int32_t thread;          /* the thread's number in its node, -1 if none */
    uint64_t arg2;           /* WAITING: see about */
    int32_t tid;             /* the kernel's thread id */
    char pad[128 - 60 - DSM_ACTIVITY_WHAT_MAX];
} dsm_activity_entry_t;

#define DSM_ACTIVITY_SLOTS 32
#define DSM_ACTIVITY_BLOCK (DSM_ACTIVITY_SLOTS * sizeof(dsm_activity_entry_t))

/* Bytes of the board of a job of `nodes` nodes. */
static inline size_t dsm_activity_board_size(int nodes)
{
    return (size_t)nodes * DSM_ACTIVITY_BLOCK;
}

/* One entry as text ("fetching page 12 from node 0", "waiting for a lock
 * grant from node 1 (lock 2 of node 1)", "computing", "... while holding
 * 1 lock (last: lock 3 of node 0)"); "" for an unused one. */
size_t dsm_activity_describe(const dsm_activity_entry_t *entry, char *buf,
                             size_t len);

/* The thread of one entry, for the hang report: "thread 1 (tid 4242)",
 * "a runtime thread (tid 4242)"; "" for an unused one. */
size_t dsm_activity_describe_thread(const dsm_activity_entry_t *entry,
                                    char *buf, size_t len);

/* A node's block as text: the distinct descriptions of its used entries,
 * joined by ", "; "" if none. */
size_t dsm_activity_describe_node(const void *block, char *buf, size_t len);

#endif
