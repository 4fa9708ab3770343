/*
 * coh_heap_sites.c - the call site of each block of this node's arena
 * (see coh_heap_sites.h).
 *
 * Layer: coherence.  coh_heap_site_record_slow runs in the allocating
 * thread (lock-free look-up of known sites; a mutex only to add a new
 * one); coh_heap_sites_lookup at finalize.
 */
#include "coh_heap_sites.h"

#include <pthread.h>
#include <stdatomic.h>

#include "coh_protocol.h"
#include "sys_region.h"

#define GRANULE_SHIFT 4
#define SITES 4096u              /* site numbers 1..SITES-1 */
#define LARGE 0x8000u
#define PAGES_MAX 0x7FFFu        /* "this many pages or more" */
#define SMALL_MAX 2048u

static _Atomic uint32_t *granules;
static uintptr_t arena_lo, arena_hi;

/* A site is published by its outside address (release), written last. */
static struct {
    _Atomic uintptr_t outside;
    uintptr_t inside;
} sites[SITES];
static pthread_mutex_t sites_mutex = PTHREAD_MUTEX_INITIALIZER;

dsm_status_t coh_heap_sites_setup(uintptr_t lo, uintptr_t hi)
{
    if (!coh_sharing_on)
        return DSM_OK;
    granules = coh_table_alloc(((hi - lo) >> GRANULE_SHIFT) *
                               sizeof *granules);
    arena_lo = lo;
    arena_hi = hi;
    return DSM_OK;   /* without the table, blocks are left unnamed */
}

static unsigned hash(uintptr_t outside, uintptr_t inside)
{
    uint64_t h = ((uint64_t)outside ^ ((uint64_t)inside << 7)) *
                 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 52) % (SITES - 1) + 1;
}

static uint32_t site_number(uintptr_t outside, uintptr_t inside)
{
    if (!outside && !inside)
        return 0;
    uintptr_t key = outside ? outside : inside;
    unsigned h = hash(outside, inside);
    for (unsigned k = 0; k < SITES - 1; k++) {
        unsigned s = (h + k - 1) % (SITES - 1) + 1;
        uintptr_t seen = atomic_load_explicit(&sites[s].outside,
                                              memory_order_acquire);
        if (!seen)
            break;
        if (seen == key && sites[s].inside == inside)
            return s;
    }
    uint32_t found = 0;
    pthread_mutex_lock(&sites_mutex);
    for (unsigned k = 0; k < SITES - 1; k++) {
        unsigned s = (h + k - 1) % (SITES - 1) + 1;
        uintptr_t seen = atomic_load_explicit(&sites[s].outside,
                                              memory_order_relaxed);
        if (seen == key && sites[s].inside == inside) {
            found = s;
            break;
        }
        if (!seen) {
            sites[s].inside = inside;
            atomic_store_explicit(&sites[s].outside, key,
                                  memory_order_release);
            found = s;
            break;
        }
    }
    pthread_mutex_unlock(&sites_mutex);
    return found;   /* 0: the table is full */
}

void coh_heap_site_record_slow(uintptr_t block, size_t size)
{
    if (!granules || block < arena_lo || block >= arena_hi)
        return;
    dsm_sys_call_site_t cs;
    dsm_sys_call_site(&cs);
    uint32_t site = site_number(cs.outside, cs.inside);
    uint32_t code;
    if (size <= SMALL_MAX) {
        code = (uint32_t)((size + (1u << GRANULE_SHIFT) - 1) >> GRANULE_SHIFT);
        code = code ? code : 1;
    } else {
        size_t pages = (size + DSM_PAGE_SIZE - 1) >> DSM_PAGE_SHIFT;
        code = LARGE | (uint32_t)(pages < PAGES_MAX ? pages : PAGES_MAX);
    }
    atomic_store_explicit(&granules[(block - arena_lo) >> GRANULE_SHIFT],
                          site << 16 | code, memory_order_relaxed);
}

/* The extent an entry recorded; SIZE_MAX for "PAGES_MAX pages or more". */
static size_t entry_bytes(uint32_t e)
{
    uint32_t code = e & 0xFFFFu;
    if (!(code & LARGE))
        return (size_t)code << GRANULE_SHIFT;
    uint32_t pages = code & PAGES_MAX;
    return pages == PAGES_MAX ? SIZE_MAX : (size_t)pages << DSM_PAGE_SHIFT;
}

static void fill(uint32_t e, uintptr_t start, size_t size,
                 coh_heap_site_t *out)
{
    uint32_t s = e >> 16;
    out->start = start;
    out->size = size;
    out->outside = s ? atomic_load(&sites[s].outside) : 0;
    out->inside = s ? sites[s].inside : 0;
    if (out->outside == out->inside)     /* keyed by inside: no outside */
        out->outside = 0;
}

static uint32_t entry_at(uintptr_t a)
{
    return atomic_load_explicit(&granules[(a - arena_lo) >> GRANULE_SHIFT],
                                memory_order_relaxed);
}

int coh_heap_sites_lookup(uintptr_t addr, uintptr_t live_start,
                          size_t live_size, coh_heap_site_t *out)
{
    if (!granules || addr < arena_lo || addr >= arena_hi)
        return -1;
    if (live_size) {
        uint32_t e = entry_at(live_start);
        if (!e)
            return -1;
        fill(e, live_start, entry_bytes(e) < live_size ? entry_bytes(e)
                                                       : live_size, out);
        return 0;
    }
    /* a freed block: the last one recorded that covers addr, within its
     * page (small blocks), else starting at a page boundary before it */
    uintptr_t page = addr & ~(uintptr_t)(DSM_PAGE_SIZE - 1);
    for (uintptr_t g = addr & ~(uintptr_t)((1u << GRANULE_SHIFT) - 1);;
         g -= 1u << GRANULE_SHIFT) {
        uint32_t e = entry_at(g);
        if (e) {
            size_t bytes = entry_bytes(e);
            if (addr - g < bytes) {
                fill(e, g, bytes, out);
                return 0;
            }
            break;
        }
        if (g == page)
            break;
    }
    for (uintptr_t p = page; p > arena_lo && (page - p) >> DSM_PAGE_SHIFT <
                                                 ((size_t)1 << 20);) {
        p -= DSM_PAGE_SIZE;
        uint32_t e = entry_at(p);
        if (!e)
            continue;
        if (!(e & LARGE) || addr - p >= entry_bytes(e))
            return -1;
        fill(e, p, entry_bytes(e), out);
        return 0;
    }
    return -1;
}
