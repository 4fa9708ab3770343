/*
 * shim_threadprivate.c - threadprivate variables when they are not in
 * thread-local storage (clang -fnoopenmp-use-tls): clang calls
 * __kmpc_threadprivate_cached for every access, with the original variable
 * and a per-variable cache pointer it keeps in the program's (sharable)
 * data.
 *
 * The cache therefore lives in sharable memory too: a header with the
 * variable's initial value (and its constructor and destructor, below),
 * then one pointer per thread of the job,
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
 * C++ objects: clang registers a constructor and a destructor for each
 * threadprivate variable of a class type (__kmpc_threadprivate_register,
 * from a static constructor: every node registers the same, before the
 * job; for a function-local static, when it is constructed, on the node
 * of the thread that constructs it: such registrations go to a list in
 * sharable memory, see shim_cxx.h).  A thread's copy is then built by the constructor, which runs the
 * variable's initialiser on it, instead of copying the initial bytes; the
 * copies are destroyed on node 0 at the end of the job (node 0 reaches
 * every copy: they are sharable), before the static objects, as libomp
 * destroys them when it shuts down.  The original variable, node 0's
 * master's copy, is an ordinary static object.
 *
 * Layer: compiler-shim.  __kmpc_threadprivate_register: static
 * constructors (the main thread, before the job).  The rest: application
 * threads the runtime created.
 */
#include <stdint.h>
#include <string.h>

#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
#include "shim_kmp.h"
#include "cxx/shim_cxx.h"

SHIM_EXPORT void *__kmpc_threadprivate_cached(ident_t *loc, kmp_int32 gtid,
                                              void *data, size_t size,
                                              void ***cache);
SHIM_EXPORT void __kmpc_threadprivate_register(ident_t *loc, void *data,
                                               void *ctor, void *cctor,
                                               void *dtor);

/* clang's constructor runs the variable's initialiser on a copy and
 * returns it; the destructor destroys one. */
typedef void *(*tp_ctor_t)(void *);
typedef void (*tp_dtor_t)(void *);

typedef struct tp_header {
    void *initial;           /* the variable's value at first use */
    size_t size;
    tp_ctor_t ctor;          /* NULL: copies start as initial's bytes */
    tp_dtor_t dtor;
    size_t nslots;
} tp_header_t;

/* ---- registered constructors ------------------------------------------ */

typedef struct registration {
    const void *data;
    tp_ctor_t ctor;
    tp_dtor_t dtor;
    struct registration *next;      /* the job's list only */
} registration_t;

/* Before the job: the same table on every node. */
#define REGISTERED_MAX 256
static registration_t registered[REGISTERED_MAX];
static int nregistered;

static const char registry_what[] = "registering a threadprivate object";

void __kmpc_threadprivate_register(ident_t *loc, void *data, void *ctor,
                                   void *cctor, void *dtor)
{
    (void)cctor;     /* clang passes NULL, as libomp requires */
    registration_t r = {data, (tp_ctor_t)ctor, (tp_dtor_t)dtor, NULL};
    if (fj_started()) {
        /* during the job, on one node: for every node to find */
        dsm_cxx_program_t *state = shim_cxx_state();
        registration_t *shared = dsm_malloc(sizeof *shared);
        if (!state || !shared)
            dsm_fatal("threadprivate object at %s: %s", shim_where(loc),
                      state ? "out of sharable memory"
                            : "link the program with dsmc++");
        fj_named_lock(&state->threadprivate, registry_what);
        r.next = state->threadprivate;
        *shared = r;
        state->threadprivate = shared;
        fj_named_unlock(&state->threadprivate, registry_what);
        return;
    }
    if (nregistered == REGISTERED_MAX)
        dsm_fatal("more than %d threadprivate variables with constructors "
                  "or destructors (at %s)", REGISTERED_MAX, shim_where(loc));
    registered[nregistered++] = r;
}

static const registration_t *registration_of(const void *data)
{
    for (int i = 0; i < nregistered; i++)
        if (registered[i].data == data)
            return &registered[i];
    dsm_cxx_program_t *state = shim_cxx_state();
    if (!state)
        return NULL;
    fj_named_lock(&state->threadprivate, registry_what);
    const registration_t *r = state->threadprivate;
    while (r && r->data != data)
        r = r->next;
    fj_named_unlock(&state->threadprivate, registry_what);
    return r;
}

/* Node 0, at the end of the job: every thread's copy but the original. */
static void destroy_copies(void *arg)
{
    tp_header_t *h = arg;
    void **slots = (void **)(h + 1);
    for (size_t id = 1; id < h->nslots; id++)
        if (slots[id])
            h->dtor(slots[id]);
}

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
        h->nslots = n;
        const registration_t *r = registration_of(data);
        if (r) {
            h->ctor = r->ctor;
            h->dtor = r->dtor;
            if (h->dtor)
                shim_cxx_at_job_exit(destroy_copies, h);
        }
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
        /* whole cache lines: two threads' copies never share one */
        copy = dsm_aligned_alloc(64, (size + 63) & ~(size_t)63);
        if (!copy)
            dsm_fatal("out of sharable memory for a threadprivate copy");
        if (h->ctor)
            h->ctor(copy);
        else
            memcpy(copy, h->initial, size);
        slots[id] = copy;
    }
    seen[seen_next % SEEN_MAX] = (seen_t){cache, id, copy};
    seen_next++;
    return copy;
}
