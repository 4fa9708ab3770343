/*
 * gomp_sync.c - synchronisation in GCC's ABI: barrier, critical sections
 * (unnamed and named), the atomic lock, single and copyprivate.
 *
 * Critical sections are cluster-wide named locks: the unnamed one is keyed
 * by a variable of this library, a named one by gcc's per-program
 * .gomp_critical_user_NAME variable, both at the same address on every
 * node.  GOMP_atomic_start/end guard what gcc could not make one atomic
 * instruction (a reduction's combination of several variables, a long
 * double update): one more cluster lock, whose acquire and release also
 * carry the protected data between nodes.
 *
 * copyprivate: the single thread hands the others the address of a block
 * gcc built on its stack (pointers to, or values of, its variables); they
 * copy from it, then gcc calls GOMP_barrier, which keeps the block alive.
 * The handover is fj_copyprivate with a one-word list: the block's
 * address.  A pointer in the block to the single thread's threadprivate
 * variables (thread-local storage) means nothing on another node, so when
 * the team spans nodes and the plug-in gave the block's size, the others
 * get a sharable copy of the block whose such pointers name snapshots of
 * the variables (fj_tls_snapshot) instead.
 *
 * Layer: compiler-shim.  Members of a region (and lone threads).
 */
#include <string.h>

#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
#include "gomp_abi.h"

GOMP_EXPORT void GOMP_barrier(void);
GOMP_EXPORT bool GOMP_barrier_cancel(void);
GOMP_EXPORT void GOMP_critical_start(void);
GOMP_EXPORT void GOMP_critical_end(void);
GOMP_EXPORT void GOMP_critical_name_start(void **pptr);
GOMP_EXPORT void GOMP_critical_name_end(void **pptr);
GOMP_EXPORT void GOMP_atomic_start(void);
GOMP_EXPORT void GOMP_atomic_end(void);
GOMP_EXPORT bool GOMP_single_start(void);
GOMP_EXPORT void *GOMP_single_copy_start(void);
GOMP_EXPORT void GOMP_single_copy_end(void *data);

/* Lock names: addresses in this library, the same on every node. */
static const char unnamed_critical_key;
static const char atomic_key;

/* The call site names the barrier for the DSM's prefetch (fj_barrier_at). */
void GOMP_barrier(void) { fj_barrier_at(__builtin_return_address(0)); }

/* Nothing is ever cancelled (gomp_unsupported.c). */
bool GOMP_barrier_cancel(void)
{
    fj_barrier_at(__builtin_return_address(0));
    return false;
}

void GOMP_critical_start(void) { fj_critical_enter(&unnamed_critical_key); }
void GOMP_critical_end(void) { fj_critical_exit(&unnamed_critical_key); }

/* pptr: the program's .gomp_critical_user_NAME, a global. */
void GOMP_critical_name_start(void **pptr) { fj_critical_enter(pptr); }
void GOMP_critical_name_end(void **pptr) { fj_critical_exit(pptr); }

void GOMP_atomic_start(void)
{
    fj_named_lock(&atomic_key, "an atomic update (GOMP_atomic_start)");
}

void GOMP_atomic_end(void)
{
    fj_named_unlock(&atomic_key, "an atomic update (GOMP_atomic_end)");
}

bool GOMP_single_start(void) { return fj_single_begin() != 0; }

/* fj_copyprivate's copy function: the list is one word, the block. */
static void copy_block_address(void *dst, void *src)
{
    memcpy(dst, src, sizeof(void *));
}

/* NULL to the thread that executes the single construct; the others wait
 * for its block and get its address. */
void *GOMP_single_copy_start(void)
{
    if (fj_single_begin())
        return NULL;
    void *block = NULL;
    fj_copyprivate(&block, sizeof block, copy_block_address, 0);
    return block;
}

/* The block other nodes can read: data itself, or this thread's sharable
 * copy of it with its threadprivate pointers replaced by snapshots. */
static void *shareable_block(void *data, size_t size)
{
    static __thread void *copy;
    static __thread size_t copy_size;
    if (!size || fj_num_threads() < 2 || dsm_num_nodes() < 2)
        return data;
    size_t words = size / sizeof(void *);
    void *snap[words ? words : 1];
    int found = 0;
    for (size_t i = 0; i < words; i++) {
        void *p;
        memcpy(&p, (char *)data + i * sizeof p, sizeof p);
        snap[i] = fj_tls_snapshot(p);
        found |= snap[i] != NULL;
    }
    if (!found)
        return data;
    if (copy_size < size) {
        dsm_free(copy);
        copy = dsm_malloc(size);
        if (!copy)
            dsm_fatal("dsmomp: out of sharable memory for a copyprivate "
                      "block of %zu bytes", size);
        copy_size = size;
    }
    memcpy(copy, data, size);
    for (size_t i = 0; i < words; i++)
        if (snap[i])
            memcpy((char *)copy + i * sizeof(void *), &snap[i],
                   sizeof(void *));
    return copy;
}

void GOMP_single_copy_end(void *data)
{
    void *block = shareable_block(data, gomp_take_data_size());
    fj_copyprivate(&block, sizeof block, copy_block_address, 1);
}
