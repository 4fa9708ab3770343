/*
 * shim_lock.c - OpenMP locks as cluster-wide DSM locks.  The lock variable
 * holds the dsm_lock_t handle itself, packed into its first 4 bytes:
 * omp_lock_t is 8 bytes in LLVM's omp.h but 4 in gcc's, and gfortran's
 * omp_lock_kind is 4.  A lock may live anywhere the program likes
 * (global, stack, heap) as long as the threads that use it can read it.
 *
 * Nest locks: the same handle, plus ownership kept by the owning thread
 * (the few nest locks a thread holds, with their depths, in thread-local
 * storage): a thread that holds the lock only counts, any other thread
 * takes the cluster lock.
 *
 * Layer: compiler-shim.  Application threads, after start-up.  Misuse the
 * OpenMP ABI cannot report (a lock used before omp_init_lock, an unset of
 * a lock not held) ends the job with a message.
 */
#include <omp.h>
#include <string.h>

#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
#include "shim_kmp.h"

/* The packed handle: a dsm_lock_t's opaque word is (manager + 1) << 32 |
 * index, both small (coh_lock.c); 4 bytes keep 12 and 20 bits of them. */
typedef uint32_t packed_lock_t;
#define INDEX_BITS 20
#define MANAGER_BITS 12
_Static_assert(sizeof(omp_lock_t) >= sizeof(packed_lock_t),
               "omp_lock_t must hold a packed lock handle");
_Static_assert(sizeof(omp_nest_lock_t) >= sizeof(packed_lock_t),
               "omp_nest_lock_t must hold a packed lock handle");

#define NEST_HELD_MAX 32

typedef struct nest_hold {
    const void *lock;
    int depth;
} nest_hold_t;

static __thread nest_hold_t nest_held[NEST_HELD_MAX];
static __thread int nest_nheld;

static dsm_lock_t handle(const void *omp_lock)
{
    packed_lock_t p;
    memcpy(&p, omp_lock, sizeof p);
    dsm_lock_t h = {((uint64_t)(p >> INDEX_BITS) << 32) |
                    (p & ((1u << INDEX_BITS) - 1))};
    return h;
}

static void store_handle(void *omp_lock, dsm_lock_t h)
{
    uint64_t manager = h.opaque >> 32, index = (uint32_t)h.opaque;
    if (manager >> MANAGER_BITS || index >> INDEX_BITS)
        dsm_fatal("a lock handle (%#llx) does not fit omp_lock_t",
                  (unsigned long long)h.opaque);
    packed_lock_t p = (packed_lock_t)(manager << INDEX_BITS | index);
    memcpy(omp_lock, &p, sizeof p);
}

static void check(dsm_status_t st, const char *call)
{
    if (st != DSM_OK)
        dsm_fatal("%s: %s", call, dsm_status_string(st));
}

static void init(void *omp_lock, const char *call)
{
    dsm_lock_t h;
    check(dsm_lock_init(&h), call);
    store_handle(omp_lock, h);
}

static void destroy(void *omp_lock, const char *call)
{
    dsm_lock_t h = handle(omp_lock);
    check(dsm_lock_destroy(&h), call);
    store_handle(omp_lock, h);
}

SHIM_EXPORT void omp_init_lock(omp_lock_t *lock)
{
    init(lock, "omp_init_lock");
}

SHIM_EXPORT void omp_init_lock_with_hint(omp_lock_t *lock,
                                         omp_lock_hint_t hint)
{
    init(lock, "omp_init_lock_with_hint");
}

SHIM_EXPORT void omp_destroy_lock(omp_lock_t *lock)
{
    destroy(lock, "omp_destroy_lock");
}

SHIM_EXPORT void omp_set_lock(omp_lock_t *lock)
{
    dsm_lock_t h = handle(lock);
    check(fj_lock_acquire(&h), "omp_set_lock");
}

SHIM_EXPORT void omp_unset_lock(omp_lock_t *lock)
{
    dsm_lock_t h = handle(lock);
    check(fj_lock_release(&h), "omp_unset_lock");
}

SHIM_EXPORT int omp_test_lock(omp_lock_t *lock)
{
    dsm_lock_t h = handle(lock);
    dsm_status_t st = fj_lock_try(&h);
    if (st == DSM_ERR_BUSY)
        return 0;
    check(st, "omp_test_lock");
    return 1;
}

static nest_hold_t *held(const void *lock)
{
    for (int i = 0; i < nest_nheld; i++)
        if (nest_held[i].lock == lock)
            return &nest_held[i];
    return NULL;
}

static void hold(const void *lock)
{
    if (nest_nheld == NEST_HELD_MAX)
        dsm_fatal("a thread holds more than %d nest locks", NEST_HELD_MAX);
    nest_held[nest_nheld++] = (nest_hold_t){lock, 1};
}

SHIM_EXPORT void omp_init_nest_lock(omp_nest_lock_t *lock)
{
    init(lock, "omp_init_nest_lock");
}

SHIM_EXPORT void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock,
                                              omp_lock_hint_t hint)
{
    init(lock, "omp_init_nest_lock_with_hint");
}

SHIM_EXPORT void omp_destroy_nest_lock(omp_nest_lock_t *lock)
{
    destroy(lock, "omp_destroy_nest_lock");
}

SHIM_EXPORT void omp_set_nest_lock(omp_nest_lock_t *lock)
{
    nest_hold_t *h = held(lock);
    if (h) {
        h->depth++;
        return;
    }
    dsm_lock_t dl = handle(lock);
    check(fj_lock_acquire(&dl), "omp_set_nest_lock");
    hold(lock);
}

SHIM_EXPORT void omp_unset_nest_lock(omp_nest_lock_t *lock)
{
    nest_hold_t *h = held(lock);
    if (!h)
        dsm_fatal("omp_unset_nest_lock of a lock this thread does not hold");
    if (--h->depth > 0)
        return;
    *h = nest_held[--nest_nheld];
    dsm_lock_t dl = handle(lock);
    check(fj_lock_release(&dl), "omp_unset_nest_lock");
}

SHIM_EXPORT int omp_test_nest_lock(omp_nest_lock_t *lock)
{
    nest_hold_t *h = held(lock);
    if (h)
        return ++h->depth;
    dsm_lock_t dl = handle(lock);
    dsm_status_t st = fj_lock_try(&dl);
    if (st == DSM_ERR_BUSY)
        return 0;
    check(st, "omp_test_nest_lock");
    hold(lock);
    return 1;
}
