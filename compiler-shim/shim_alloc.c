/*
 * shim_alloc.c - OpenMP memory allocators over the sharable heap:
 * omp_alloc, omp_aligned_alloc, omp_calloc, omp_aligned_calloc,
 * omp_realloc, omp_free, omp_init_allocator, omp_destroy_allocator,
 * omp_{set,get}_default_allocator, the allocate clause and directive
 * (__kmpc_alloc, __kmpc_aligned_alloc, __kmpc_calloc, __kmpc_realloc,
 * __kmpc_free, __kmpc_init_allocator, __kmpc_destroy_allocator), and
 * libomp's kmp_malloc family.
 *
 * Every memory space is the sharable heap: it is the only memory all the
 * team's threads can reach, whatever node they run on, so a block from
 * any allocator may be handed to any thread (the predefined allocators
 * for thread, team or contention-group access included).  A block is
 * homed at the node that allocated it, so memory used by one node stays
 * cheap.  Traits honoured: alignment (a power of two), pool_size (bytes
 * live at once, counted cluster-wide under a cluster lock named by the
 * allocator), fallback (default_mem_fb, null_fb, abort_fb, allocator_fb
 * with fb_data).  sync_hint, access, pinned and partition are checked and
 * accepted: they change nothing here.  An allocator made by
 * omp_init_allocator lives in the sharable heap, so its handle is valid on
 * every node.
 *
 * Each block starts with a header (the allocator, the block's base and
 * size) just before the address returned, so that omp_free and
 * omp_realloc know the block whatever allocator argument they get.  A
 * size of 0 gives NULL, as libomp does.
 *
 * def-allocator-var is per thread (as in libomp): OMP_ALLOCATOR's value
 * until the thread calls omp_set_default_allocator.
 *
 * Layer: compiler-shim.  Any application thread, before start-up too
 * (libc's heap then).
 */
#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
#include "shim_alloc.h"
#include "shim_kmp.h"

#define ALLOCATOR_MAGIC 0x616c6c6f63617472ull    /* "allocatr" */
#define BLOCK_MAGIC     0x6f6d70626c6f636bull    /* "ompblock" */
#define MIN_ALIGN 16

/* An allocator made by omp_init_allocator (in the sharable heap). */
typedef struct allocator {
    uint64_t magic;
    uintptr_t memspace;
    size_t alignment;        /* at least MIN_ALIGN */
    uintptr_t fallback;      /* omp_atv_*_fb */
    uintptr_t fb_data;       /* allocator_fb's allocator */
    size_t pool_size;        /* 0: no limit */
    size_t pool_used;        /* under the allocator's cluster lock */
} allocator_t;

/* Before every block. */
typedef struct block_head {
    uint64_t magic;
    uintptr_t allocator;     /* the handle that allocated it */
    void *base;              /* what the heap returned */
    size_t size;             /* bytes asked for */
} block_head_t;

_Static_assert(sizeof(block_head_t) == 32, "block header size");

/* The traits of an allocator handle, predefined or made. */
typedef struct traits {
    allocator_t *made;       /* NULL for a predefined allocator */
    size_t alignment;
    uintptr_t fallback, fb_data;
} traits_t;

static __thread uintptr_t thread_default;   /* 0: OMP_ALLOCATOR's */

static int predefined(uintptr_t a)
{
    return (a >= omp_default_mem_alloc && a <= omp_thread_mem_alloc) ||
           (a >= llvm_omp_target_host_mem_alloc &&
            a <= llvm_omp_target_device_mem_alloc);
}

void shim_alloc_reset_default(void) { thread_default = 0; }

static uintptr_t default_allocator(void)
{
    return thread_default ? thread_default : fj_icv_default_allocator();
}

static traits_t traits_of(uintptr_t a, const char *routine)
{
    if (a == omp_null_allocator)
        a = default_allocator();
    if (predefined(a))
        return (traits_t){NULL, MIN_ALIGN, omp_atv_default_mem_fb, 0};
    allocator_t *made = (allocator_t *)a;
    if (!dsm_is_sharable(made) && fj_heap_open())
        dsm_fatal("%s: %#lx is not an allocator handle", routine,
                  (unsigned long)a);
    if (made->magic != ALLOCATOR_MAGIC)
        dsm_fatal("%s: %#lx is not an allocator handle (destroyed, or "
                  "never made by omp_init_allocator)", routine,
                  (unsigned long)a);
    return (traits_t){made, made->alignment, made->fallback, made->fb_data};
}

/* Memory from the sharable heap while the runtime is up, else libc's. */
static void *heap_alloc(size_t alignment, size_t size)
{
    if (fj_heap_open())
        return dsm_aligned_alloc(alignment, size);
    void *p = NULL;
    return posix_memalign(&p, alignment, size) == 0 ? p : NULL;
}

static void heap_free(void *p)
{
    if (dsm_is_sharable(p))
        dsm_free(p);
    else
        free(p);
}

/* pool_size: reserve (delta > 0) or return bytes of a made allocator. */
static int pool_charge(allocator_t *made, long long delta)
{
    if (!made || !made->pool_size)
        return 1;
    int ok = 1;
    if (fj_started())
        fj_named_lock(made, "an allocator's pool");
    if (delta > 0 && made->pool_used + (size_t)delta > made->pool_size)
        ok = 0;
    else
        made->pool_used += (size_t)delta;
    if (fj_started())
        fj_named_unlock(made, "an allocator's pool");
    return ok;
}

static void *allocate(size_t alignment, size_t size, uintptr_t a,
                      const char *routine, int depth)
{
    if (size == 0)
        return NULL;
    if (a == omp_null_allocator)
        a = default_allocator();
    traits_t t = traits_of(a, routine);
    if (alignment & (alignment - 1))
        dsm_fatal("%s: alignment %zu is not a power of two", routine,
                  alignment);
    if (alignment < t.alignment)
        alignment = t.alignment;
    size_t head = alignment > sizeof(block_head_t) ? alignment
                                                   : sizeof(block_head_t);
    void *base = NULL;
    if (size <= SIZE_MAX - head && pool_charge(t.made, (long long)size)) {
        base = heap_alloc(alignment, head + size);
        if (!base)
            pool_charge(t.made, -(long long)size);
    }
    if (base) {
        char *user = (char *)base + head;
        block_head_t *h = (block_head_t *)user - 1;
        *h = (block_head_t){BLOCK_MAGIC, a, base, size};
        return user;
    }
    if (depth > 8)
        dsm_fatal("%s: allocator fallbacks go round in a circle", routine);
    switch (t.fallback) {
    case omp_atv_default_mem_fb:
        if (a == omp_default_mem_alloc)
            return NULL;
        return allocate(alignment, size, omp_default_mem_alloc, routine,
                        depth + 1);
    case omp_atv_null_fb:
        return NULL;
    case omp_atv_abort_fb:
        dsm_fatal("%s: %zu bytes could not be allocated and the "
                  "allocator's fallback is abort_fb", routine, size);
    case omp_atv_allocator_fb:
        return allocate(alignment, size, t.fb_data, routine, depth + 1);
    default:
        return NULL;
    }
}

static block_head_t *head_of(void *ptr, const char *routine)
{
    block_head_t *h = (block_head_t *)ptr - 1;
    if (h->magic != BLOCK_MAGIC)
        dsm_fatal("%s: %p was not allocated by an OpenMP allocator (or was "
                  "freed already)", routine, ptr);
    return h;
}

static void release(void *ptr, const char *routine)
{
    if (!ptr)
        return;
    block_head_t *h = head_of(ptr, routine);
    h->magic = 0;
    if (!predefined(h->allocator)) {
        allocator_t *made = (allocator_t *)h->allocator;
        if (made->magic == ALLOCATOR_MAGIC)
            pool_charge(made, -(long long)h->size);
    }
    heap_free(h->base);
}

static void *zeroed(size_t alignment, size_t count, size_t size,
                    uintptr_t a, const char *routine)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = allocate(alignment, count * size, a, routine, 0);
    if (p)
        memset(p, 0, count * size);
    return p;
}

static void *reallocate(void *ptr, size_t size, uintptr_t a, uintptr_t fa,
                        const char *routine)
{
    if (!ptr)
        return allocate(0, size, a, routine, 0);
    if (size == 0) {
        release(ptr, routine);
        return NULL;
    }
    block_head_t *h = head_of(ptr, routine);
    if (a == omp_null_allocator)
        a = h->allocator;        /* as if ptr's allocator were given */
    void *moved = allocate(0, size, a, routine, 0);
    if (!moved)
        return NULL;             /* ptr stays valid */
    memcpy(moved, ptr, h->size < size ? h->size : size);
    release(ptr, routine);
    return moved;
}

/* ---- allocators ------------------------------------------------------ */

static int valid_memspace(uintptr_t m)
{
    return m <= omp_low_lat_mem_space ||
           (m >= llvm_omp_target_host_mem_space &&
            m <= llvm_omp_target_device_mem_space);
}

/* Check one trait into a; 0 when its key or value is not valid. */
static int take_trait(allocator_t *a, const omp_alloctrait_t *t)
{
    uintptr_t v = t->value;
    int dflt = v == omp_atv_default;
    switch (t->key) {
    case omp_atk_sync_hint:
        return dflt || v == omp_atv_contended || v == omp_atv_uncontended ||
               v == omp_atv_serialized || v == omp_atv_private;
    case omp_atk_alignment:
        if (dflt)
            return 1;
        if (v == 0 || (v & (v - 1)))
            return 0;
        if (v > a->alignment)
            a->alignment = v;
        return 1;
    case omp_atk_access:
        return dflt || v == omp_atv_all || v == omp_atv_cgroup ||
               v == omp_atv_pteam || v == omp_atv_thread;
    case omp_atk_pool_size:
        if (!dflt)
            a->pool_size = v;
        return 1;
    case omp_atk_fallback:
        if (dflt)
            v = omp_atv_default_mem_fb;
        if (v != omp_atv_default_mem_fb && v != omp_atv_null_fb &&
            v != omp_atv_abort_fb && v != omp_atv_allocator_fb)
            return 0;
        a->fallback = v;
        return 1;
    case omp_atk_fb_data:
        a->fb_data = dflt ? 0 : v;
        return 1;
    case omp_atk_pinned:
        return dflt || v == omp_atv_true || v == omp_atv_false;
    case omp_atk_partition:
        return dflt || v == omp_atv_environment || v == omp_atv_nearest ||
               v == omp_atv_blocked || v == omp_atv_interleaved;
    default:
        return 0;
    }
}

SHIM_EXPORT omp_allocator_handle_t omp_init_allocator(
    omp_memspace_handle_t memspace, int ntraits, omp_alloctrait_t traits[])
{
    allocator_t a = {ALLOCATOR_MAGIC, (uintptr_t)memspace, MIN_ALIGN,
                     omp_atv_default_mem_fb, 0, 0, 0};
    if (!valid_memspace((uintptr_t)memspace) || ntraits < 0 ||
        (ntraits > 0 && !traits))
        return omp_null_allocator;
    for (int i = 0; i < ntraits; i++)
        if (!take_trait(&a, &traits[i]))
            return omp_null_allocator;
    if (a.fallback == omp_atv_allocator_fb && a.fb_data == 0)
        return omp_null_allocator;
    allocator_t *made = fj_heap_open() ? dsm_malloc(sizeof *made)
                                       : malloc(sizeof *made);
    if (!made)
        return omp_null_allocator;
    *made = a;
    return (omp_allocator_handle_t)(uintptr_t)made;
}

SHIM_EXPORT void omp_destroy_allocator(omp_allocator_handle_t allocator)
{
    uintptr_t a = (uintptr_t)allocator;
    if (a == omp_null_allocator || predefined(a))
        return;
    traits_t t = traits_of(a, "omp_destroy_allocator");
    t.made->magic = 0;
    heap_free(t.made);
}

SHIM_EXPORT void omp_set_default_allocator(omp_allocator_handle_t allocator)
{
    uintptr_t a = (uintptr_t)allocator;
    if (a != omp_null_allocator)
        traits_of(a, "omp_set_default_allocator");   /* checks it */
    thread_default = a;
}

SHIM_EXPORT omp_allocator_handle_t omp_get_default_allocator(void)
{
    return (omp_allocator_handle_t)default_allocator();
}

/* ---- omp_alloc and friends --------------------------------------------- */

SHIM_EXPORT void *omp_alloc(size_t size, omp_allocator_handle_t allocator)
{
    return allocate(0, size, (uintptr_t)allocator, "omp_alloc", 0);
}

SHIM_EXPORT void *omp_aligned_alloc(size_t alignment, size_t size,
                                    omp_allocator_handle_t allocator)
{
    return allocate(alignment, size, (uintptr_t)allocator,
                    "omp_aligned_alloc", 0);
}

SHIM_EXPORT void *omp_calloc(size_t count, size_t size,
                             omp_allocator_handle_t allocator)
{
    return zeroed(0, count, size, (uintptr_t)allocator, "omp_calloc");
}

SHIM_EXPORT void *omp_aligned_calloc(size_t alignment, size_t count,
                                     size_t size,
                                     omp_allocator_handle_t allocator)
{
    return zeroed(alignment, count, size, (uintptr_t)allocator,
                  "omp_aligned_calloc");
}

SHIM_EXPORT void *omp_realloc(void *ptr, size_t size,
                              omp_allocator_handle_t allocator,
                              omp_allocator_handle_t free_allocator)
{
    return reallocate(ptr, size, (uintptr_t)allocator,
                      (uintptr_t)free_allocator, "omp_realloc");
}

SHIM_EXPORT void omp_free(void *ptr, omp_allocator_handle_t allocator)
{
    release(ptr, "omp_free");
}

/* ---- the allocate clause and directive (clang's calls) ------------------ */

SHIM_EXPORT void *__kmpc_alloc(kmp_int32 gtid, size_t size,
                               omp_allocator_handle_t allocator);
SHIM_EXPORT void *__kmpc_aligned_alloc(kmp_int32 gtid, size_t alignment,
                                       size_t size,
                                       omp_allocator_handle_t allocator);
SHIM_EXPORT void *__kmpc_calloc(kmp_int32 gtid, size_t count, size_t size,
                                omp_allocator_handle_t allocator);
SHIM_EXPORT void *__kmpc_realloc(kmp_int32 gtid, void *ptr, size_t size,
                                 omp_allocator_handle_t allocator,
                                 omp_allocator_handle_t free_allocator);
SHIM_EXPORT void __kmpc_free(kmp_int32 gtid, void *ptr,
                             omp_allocator_handle_t allocator);
SHIM_EXPORT omp_allocator_handle_t __kmpc_init_allocator(
    kmp_int32 gtid, omp_memspace_handle_t memspace, int ntraits,
    omp_alloctrait_t traits[]);
SHIM_EXPORT void __kmpc_destroy_allocator(kmp_int32 gtid,
                                          omp_allocator_handle_t allocator);
SHIM_EXPORT void __kmpc_set_default_allocator(
    kmp_int32 gtid, omp_allocator_handle_t allocator);
SHIM_EXPORT omp_allocator_handle_t __kmpc_get_default_allocator(
    kmp_int32 gtid);

void *__kmpc_alloc(kmp_int32 gtid, size_t size,
                   omp_allocator_handle_t allocator)
{
    return allocate(0, size, (uintptr_t)allocator, "allocate clause", 0);
}

void *__kmpc_aligned_alloc(kmp_int32 gtid, size_t alignment, size_t size,
                           omp_allocator_handle_t allocator)
{
    return allocate(alignment, size, (uintptr_t)allocator,
                    "allocate clause", 0);
}

void *__kmpc_calloc(kmp_int32 gtid, size_t count, size_t size,
                    omp_allocator_handle_t allocator)
{
    return zeroed(0, count, size, (uintptr_t)allocator, "allocate clause");
}

void *__kmpc_realloc(kmp_int32 gtid, void *ptr, size_t size,
                     omp_allocator_handle_t allocator,
                     omp_allocator_handle_t free_allocator)
{
    return reallocate(ptr, size, (uintptr_t)allocator,
                      (uintptr_t)free_allocator, "allocate clause");
}

void __kmpc_free(kmp_int32 gtid, void *ptr, omp_allocator_handle_t allocator)
{
    release(ptr, "allocate clause");
}

omp_allocator_handle_t __kmpc_init_allocator(kmp_int32 gtid,
                                             omp_memspace_handle_t memspace,
                                             int ntraits,
                                             omp_alloctrait_t traits[])
{
    return omp_init_allocator(memspace, ntraits, traits);
}

void __kmpc_destroy_allocator(kmp_int32 gtid,
                              omp_allocator_handle_t allocator)
{
    omp_destroy_allocator(allocator);
}

void __kmpc_set_default_allocator(kmp_int32 gtid,
                                  omp_allocator_handle_t allocator)
{
    omp_set_default_allocator(allocator);
}

omp_allocator_handle_t __kmpc_get_default_allocator(kmp_int32 gtid)
{
    return omp_get_default_allocator();
}

/* ---- the predefined handles as variables -------------------------------- */

/* On Windows omp.h declares the handles as variables; other compilers'
 * programs may too.  Exported under their names with their values. */
#define HANDLE(name, value) SHIM_EXPORT const uintptr_t name##_var \
    __asm__(#name) = value;
HANDLE(omp_null_allocator, 0)
HANDLE(omp_default_mem_alloc, 1)
HANDLE(omp_large_cap_mem_alloc, 2)
HANDLE(omp_const_mem_alloc, 3)
HANDLE(omp_high_bw_mem_alloc, 4)
HANDLE(omp_low_lat_mem_alloc, 5)
HANDLE(omp_cgroup_mem_alloc, 6)
HANDLE(omp_pteam_mem_alloc, 7)
HANDLE(omp_thread_mem_alloc, 8)
HANDLE(omp_default_mem_space, 0)
HANDLE(omp_large_cap_mem_space, 1)
HANDLE(omp_const_mem_space, 2)
HANDLE(omp_high_bw_mem_space, 3)
HANDLE(omp_low_lat_mem_space, 4)

/* ---- libomp's kmp_malloc family: the program's heap ------------------------ */

/* shim_heap.c: the sharable heap while the runtime is up, libc's else. */
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *ptr, size_t size);
void __wrap_free(void *ptr);
void *__wrap_memalign(size_t alignment, size_t size);

SHIM_EXPORT void *kmp_malloc(size_t size) { return __wrap_malloc(size); }

SHIM_EXPORT void *kmp_aligned_malloc(size_t size, size_t alignment)
{
    if (alignment == 0 || (alignment & (alignment - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return __wrap_memalign(alignment, size);
}

SHIM_EXPORT void *kmp_calloc(size_t count, size_t size)
{
    return __wrap_calloc(count, size);
}

SHIM_EXPORT void *kmp_realloc(void *ptr, size_t size)
{
    return __wrap_realloc(ptr, size);
}

SHIM_EXPORT void kmp_free(void *ptr) { __wrap_free(ptr); }
