/*
 * tp_msgq.h - messages copied for later: self-sends and sends made from
 * handlers (tp_msgq.c).  Allocation uses a preallocated slot pool, or mmap
 * for large messages or when the pool is empty: no malloc, so safe in the
 * fault handler.
 *
 * Layer: transport (internal).
 */
#ifndef TP_MSGQ_H
#define TP_MSGQ_H

#include <pthread.h>
#include <stddef.h>

#include "transport.h"

typedef struct tp_msg {
    struct tp_msg *next;
    int peer;              /* destination (deferred) or source (self) */
    unsigned id;
    size_t len;
    size_t map_len;        /* 0: pool slot; else length of its mmap */
    unsigned char data[];
} tp_msg_t;

typedef struct tp_msgq {
    pthread_mutex_t lock;
    tp_msg_t *head, *tail;
} tp_msgq_t;

dsm_status_t tp_msg_pool_init(void);
void tp_msg_pool_destroy(void);
tp_msg_t *tp_msg_alloc(size_t len);       /* NULL when out of memory */
void tp_msg_free(tp_msg_t *msg);
void tp_msgq_init(tp_msgq_t *q);
/* Append; returns non-zero if the queue was empty before. */
int tp_msgq_push(tp_msgq_t *q, tp_msg_t *msg);
tp_msg_t *tp_msgq_pop(tp_msgq_t *q);

#endif
