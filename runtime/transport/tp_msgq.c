/*
 * tp_msgq.c - buffers for messages that are sent later: self-sends
 * (delivered by a progress call) and sends made from inside a handler
 * (handed to UCX once the progress call returns), and the FIFO queues that
 * hold them.
 *
 * Layer: transport.  Entry points: tp_msg_pool_init/destroy (dsm_tp_init
 * and dsm_tp_finalize), tp_msg_alloc/free and tp_msgq_* (any thread, the
 * fault handler included).  No malloc: buffers come from a slot pool mapped
 * at start-up, or from mmap(2) for large messages and when the pool is
 * empty; both are safe where malloc is not.  The locks are never held by a
 * thread that faults (a fault happens in application code, never here).
 */
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tp_msgq.h"

#define SLOT_BYTES ((size_t)16 * 1024)   /* a page and its header fit */
#define SLOT_COUNT 64

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *pool_mem;
static tp_msg_t *pool_free;

dsm_status_t tp_msg_pool_init(void)
{
    void *mem = mmap(NULL, SLOT_BYTES * SLOT_COUNT, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return DSM_ERR_NOMEM;
    pool_mem = mem;
    pool_free = NULL;
    for (int i = SLOT_COUNT - 1; i >= 0; i--) {
        tp_msg_t *m = (tp_msg_t *)(pool_mem + (size_t)i * SLOT_BYTES);
        m->next = pool_free;
        pool_free = m;
    }
    return DSM_OK;
}

void tp_msg_pool_destroy(void)
{
    if (pool_mem)
        munmap(pool_mem, SLOT_BYTES * SLOT_COUNT);
    pool_mem = NULL;
    pool_free = NULL;
}

tp_msg_t *tp_msg_alloc(size_t len)
{
    size_t need = offsetof(tp_msg_t, data) + len;
    tp_msg_t *m = NULL;
    if (need <= SLOT_BYTES) {
        pthread_mutex_lock(&pool_lock);
        m = pool_free;
        if (m)
            pool_free = m->next;
        pthread_mutex_unlock(&pool_lock);
        if (m) {
            m->map_len = 0;
            m->next = NULL;
            m->len = len;
            return m;
        }
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t map_len = (need + page - 1) / page * page;
    void *mem = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return NULL;
    m = mem;
    m->map_len = map_len;
    m->next = NULL;
    m->len = len;
    return m;
}

void tp_msg_free(tp_msg_t *msg)
{
    if (msg->map_len) {
        munmap(msg, msg->map_len);
        return;
    }
    pthread_mutex_lock(&pool_lock);
    msg->next = pool_free;
    pool_free = msg;
    pthread_mutex_unlock(&pool_lock);
}

void tp_msgq_init(tp_msgq_t *q)
{
    pthread_mutex_init(&q->lock, NULL);
    q->head = q->tail = NULL;
}

int tp_msgq_push(tp_msgq_t *q, tp_msg_t *msg)
{
    msg->next = NULL;
    pthread_mutex_lock(&q->lock);
    int was_empty = q->head == NULL;
    if (was_empty)
        q->head = msg;
    else
        q->tail->next = msg;
    q->tail = msg;
    pthread_mutex_unlock(&q->lock);
    return was_empty;
}

tp_msg_t *tp_msgq_pop(tp_msgq_t *q)
{
    pthread_mutex_lock(&q->lock);
    tp_msg_t *m = q->head;
    if (m) {
        q->head = m->next;
        if (!q->head)
            q->tail = NULL;
    }
    pthread_mutex_unlock(&q->lock);
    return m;
}
