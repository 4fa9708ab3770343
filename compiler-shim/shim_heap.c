/*
 * shim_heap.c - the program's own heap is sharable.  dsmcc links with
 * -Wl,--wrap=malloc (and calloc, realloc, free, posix_memalign,
 * aligned_alloc, memalign, reallocarray), which redirects only the
 * references in the program's own objects: the C library, the runtime and
 * other libraries keep libc's malloc for their internal allocations.
 *
 * Allocations go to the sharable heap (dsm_malloc) while the runtime is up
 * and to libc before start-up (constructors) and after shut-down
 * (destructors).  free and realloc decide by address: a block inside the
 * sharable region is the runtime's, any other came from libc (strdup,
 * getline, asprintf, or malloc before start-up) and goes back to libc.  A
 * libc block that realloc grows while the runtime is up moves to the
 * sharable heap, so data the program builds up is shared either way.
 *
 * --wrap leaves a reference to __real_malloc unresolved in a shared
 * library, so the libc calls below simply name malloc: inside libdsmomp
 * that is libc's.
 *
 * Layer: compiler-shim.  Entry points: __wrap_malloc and the others above.
 * Any thread of the program, before, during and after the job; never a
 * signal handler (neither is libc's malloc).
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base_config.h"
#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
#include "shim_kmp.h"

SHIM_EXPORT void *__wrap_malloc(size_t size);
SHIM_EXPORT void *__wrap_calloc(size_t count, size_t size);
SHIM_EXPORT void *__wrap_realloc(void *ptr, size_t size);
SHIM_EXPORT void *__wrap_reallocarray(void *ptr, size_t count, size_t size);
SHIM_EXPORT void __wrap_free(void *ptr);
SHIM_EXPORT int __wrap_posix_memalign(void **out, size_t alignment,
                                      size_t size);
SHIM_EXPORT void *__wrap_aligned_alloc(size_t alignment, size_t size);
SHIM_EXPORT void *__wrap_memalign(size_t alignment, size_t size);

/* Inside the sharable region: decided by address, so it also holds before
 * the configuration of this process is loaded (nothing is there yet) and
 * after the runtime shut down (the block is still the runtime's). */
static int in_region(const void *ptr)
{
    const dsm_config_t *cfg = dsm_config();
    uintptr_t p = (uintptr_t)ptr;
    return cfg && cfg->region_size && p >= cfg->region_base &&
           p - cfg->region_base < cfg->region_size;
}

void *__wrap_malloc(size_t size)
{
    return fj_heap_open() ? dsm_malloc(size) : malloc(size);
}

void *__wrap_calloc(size_t count, size_t size)
{
    return fj_heap_open() ? dsm_calloc(count, size) : calloc(count, size);
}

void __wrap_free(void *ptr)
{
    if (!ptr)
        return;
    if (in_region(ptr))
        dsm_free(ptr);      /* after shut-down: nothing to do */
    else
        free(ptr);
}

void *__wrap_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return __wrap_malloc(size);
    if (in_region(ptr)) {
        if (!fj_heap_open())
            dsm_fatal("realloc(%p) of a sharable block after the runtime "
                      "shut down", ptr);
        return dsm_realloc(ptr, size);
    }
    if (!fj_heap_open() || size == 0)
        return realloc(ptr, size);
    void *moved = dsm_malloc(size);
    if (!moved)
        return NULL;
    size_t old = malloc_usable_size(ptr);
    memcpy(moved, ptr, old < size ? old : size);
    free(ptr);
    return moved;
}

void *__wrap_reallocarray(void *ptr, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return __wrap_realloc(ptr, count * size);
}

void *__wrap_aligned_alloc(size_t alignment, size_t size)
{
    return fj_heap_open() ? dsm_aligned_alloc(alignment, size)
                          : aligned_alloc(alignment, size);
}

void *__wrap_memalign(size_t alignment, size_t size)
{
    return fj_heap_open() ? dsm_aligned_alloc(alignment, size)
                          : memalign(alignment, size);
}

int __wrap_posix_memalign(void **out, size_t alignment, size_t size)
{
    if (!fj_heap_open())
        return posix_memalign(out, alignment, size);
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)))
        return EINVAL;
    void *p = dsm_aligned_alloc(alignment, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}
