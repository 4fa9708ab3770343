/*
 * fj_critical.c - named cluster locks and the critical sections built on
 * them.  The name variable clang emits for a critical section
 * (.gomp_critical_user_NAME.var) is a global, so its address is the same
 * on every node and names one cluster lock; reductions, ordered sections
 * and threadprivate caches name theirs the same way.  Acquiring also
 * acquires what the previous holder wrote.
 *
 * Distinct names are distinct cluster locks (the manager keeps the full
 * key, coh_lock.c).  A thread that takes a name it already holds (a
 * std::recursive_mutex, shim_cxx_sync.c) counts it: only its outermost
 * acquire and release reach the DSM.
 *
 * Layer: forkjoin.  Entry points: fj_named_lock, fj_named_trylock,
 * fj_named_unlock, fj_critical_enter, fj_critical_exit.  Any application
 * thread.
 */
#include <stdint.h>

#include "base_log.h"
#include "coherence.h"
#include "fj_internal.h"

#define HELD_MAX 32

typedef struct held_lock {
    uint64_t handle;
    int depth;
} held_lock_t;

static __thread held_lock_t held[HELD_MAX];
static __thread int nheld;

static held_lock_t *find(uint64_t handle)
{
    for (int i = 0; i < nheld; i++)
        if (held[i].handle == handle)
            return &held[i];
    return NULL;
}

void fj_named_lock(const void *key, const char *what)
{
    dsm_lock_t lock = dsm_coh_lock_named((uint64_t)(uintptr_t)key);
    held_lock_t *h = find(lock.opaque);
    if (h) {
        h->depth++;
        return;
    }
    if (nheld == HELD_MAX)
        dsm_fatal("%s: a thread holds more than %d named locks", what,
                  HELD_MAX);
    dsm_status_t st = fj_lock_acquire(&lock);
    if (st != DSM_OK)
        dsm_fatal("%s: %s", what, dsm_status_string(st));
    held[nheld++] = (held_lock_t){lock.opaque, 1};
}

int fj_named_trylock(const void *key, const char *what)
{
    dsm_lock_t lock = dsm_coh_lock_named((uint64_t)(uintptr_t)key);
    held_lock_t *h = find(lock.opaque);
    if (h) {
        h->depth++;
        return 1;
    }
    if (nheld == HELD_MAX)
        dsm_fatal("%s: a thread holds more than %d named locks", what,
                  HELD_MAX);
    dsm_status_t st = fj_lock_try(&lock);
    if (st == DSM_ERR_BUSY)
        return 0;
    if (st != DSM_OK)
        dsm_fatal("%s: %s", what, dsm_status_string(st));
    held[nheld++] = (held_lock_t){lock.opaque, 1};
    return 1;
}

void fj_named_unlock(const void *key, const char *what)
{
    dsm_lock_t lock = dsm_coh_lock_named((uint64_t)(uintptr_t)key);
    held_lock_t *h = find(lock.opaque);
    if (!h)
        dsm_fatal("%s: releasing a lock this thread does not hold", what);
    if (--h->depth > 0)
        return;
    *h = held[--nheld];
    dsm_status_t st = fj_lock_release(&lock);
    if (st != DSM_OK)
        dsm_fatal("%s: %s", what, dsm_status_string(st));
}

void fj_critical_enter(const void *key)
{
    fj_named_lock(key, "entering a critical section");
}

void fj_critical_exit(const void *key)
{
    fj_named_unlock(key, "leaving a critical section");
}
