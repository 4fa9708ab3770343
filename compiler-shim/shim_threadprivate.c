/*
 * shim_threadprivate.c - threadprivate variables when they are not in
 * thread-local storage (clang -fnoopenmp-use-tls): clang calls
 * __kmpc_threadprivate_cached for every access, with the original variable
 * and a per-variable cache pointer it keeps in the program's (sharable)
 * data.
 *
 * The cache therefore lives in sharable memory too: a header with the
 * variable's initial value, then one pointer per thread of the job,
 * indexed by global thread id (the extra threads of nested teams
 * included: fj_thread_id_bound).  Node 0's master uses the original
 * variable; every other thread gets a copy in the sharable heap of its own
 * node (reachable from every node, so copyin and copyprivate work across
 * nodes), initialised from the value the variable had when it was first
 * used.  The cache is created under a cluster lock named by its address.
 * A thread's first use of a variable takes that lock too (its acquire
 * makes the cache current here); the thread then remembers its copy in
 * thread-local memory, and later uses read nothing sharable.
 *
 * Layer: compiler-shim.  Application threads the runtime created.
 */
#include <stdint.h>
#include <string.h>

#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
#include "shim_kmp.h"

SHIM_EXPORT void *__kmpc_threadprivate_cached(ident_t *loc, kmp_int32 gtid,
                                              void *data, size_t size,
                                              void ***cache);

typedef struct tp_header {
    void *initial;           /* the variable's value at first use */
    size_t size;
} tp_header_t;

/* The caches this thread has used, and its copy in each: the fast path.
 * A thread keeps its global thread id, so the pair names one slot; a
 * variable evicted from here takes the locked path once more. */
#define SEEN_MAX 16
typedef struct seen {
    void ***cache;
    int gtid;
    void *copy;
} seen_t;
static __thread seen_t seen[SEEN_MAX];
static __thread unsigned seen_next;

static void **create_cache(void *data, size_t size, void ***cache)
{
    fj_named_lock(cache, "threadprivate cache");
    void **slots = *cache;
    if (!slots) {
        size_t n = (size_t)fj_thread_id_bound();
        tp_header_t *h = dsm_calloc(1, sizeof *h + n * sizeof(void *));
        void *initial = dsm_malloc(size ? size : 1);
        if (!h || !initial)
            dsm_fatal("out of sharable memory for a threadprivate variable");
        memcpy(initial, data, size);
        h->initial = initial;
        h->size = size;
        slots = (void **)(h + 1);
        *cache = slots;
    }
    fj_named_unlock(cache, "threadprivate cache");
    return slots;
}

void *__kmpc_threadprivate_cached(ident_t *loc, kmp_int32 gtid, void *data,
                                  size_t size, void ***cache)
{
    if (!fj_started())
        return data;                 /* constructors: only one thread */
    int id = fj_gtid();
    if (id < 0)
        dsm_fatal("threadprivate variable at %s used by a thread the "
                  "OpenMP runtime did not create", shim_where(loc));
    for (int i = 0; i < SEEN_MAX; i++)
        if (seen[i].cache == cache && seen[i].gtid == id)
            return seen[i].copy;
    /* Not seen by this thread: nothing read from the cache without the
     * lock can be trusted (another node may have created it and not yet
     * released to us, and a stale copy of a reused block holds garbage),
     * so take the lock, whose acquire brings the cache as it is. */
    void **slots = create_cache(data, size, cache);
    void *copy = id == 0 ? data : slots[id];
    if (!copy) {
        const tp_header_t *h = (const tp_header_t *)slots - 1;
        copy = dsm_malloc(size ? size : 1);
        if (!copy)
            dsm_fatal("out of sharable memory for a threadprivate copy");
        memcpy(copy, h->initial, size);
        slots[id] = copy;
    }
    seen[seen_next % SEEN_MAX] = (seen_t){cache, id, copy};
    seen_next++;
    return copy;
}
