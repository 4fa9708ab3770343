/*
 * coh_heap.c - the sharable heap: dsm_malloc and friends over per-node
 * arenas (coh_arena), and the Intel Cluster OpenMP aliases.
 *
 * Layer: coherence.  Each node allocates from its own arena, whose pages it
 * homes, so an allocation never crosses the network.  Freeing or resizing a
 * block of another node's arena sends that node a message (a free is
 * asynchronous; a realloc asks for the block's size).  Any application
 * thread; never the fault handler, except coh_heap_arena_of (arithmetic
 * only).  Handlers run in any progressing thread.
 */
#include <errno.h>
#include <string.h>

#include "base_log.h"
#include "coh_arena.h"
#include "coh_heap_sites.h"
#include "coh_protocol.h"
#include "coh_state.h"
#include "coh_wire.h"
#include "transport.h"

static dsm_arena_t *arena;
/* a request's message: the transport is handed private memory */
static __thread coh_msg_heap_t heap_msg_out;

/* This node's arena serves: after dsm_coh_init, or after
 * dsm_coh_heap_early (then only its own blocks exist). */
static int heap_up(void) { return (coh.initialized || coh.heap_early) && arena; }

static int owner_of(uintptr_t p)
{
    if (p < coh.heap_base || p - coh.heap_base >= coh.arena_bytes *
                                                      (size_t)coh.size)
        return -1;
    return (int)((p - coh.heap_base) / coh.arena_bytes);
}

int coh_heap_arena_of(size_t index)
{
    return owner_of(coh_page_addr(index));
}

dsm_status_t coh_heap_setup(void)
{
    uintptr_t lo = coh.heap_base + coh.arena_bytes * (size_t)coh.rank;
    dsm_status_t st = coh_heap_sites_setup(lo, lo + coh.arena_bytes);
    return st != DSM_OK ? st : dsm_arena_create(lo, lo + coh.arena_bytes,
                                                &arena);
}

int coh_heap_describe(uintptr_t addr, coh_heap_site_t *out)
{
    uintptr_t start = 0;
    size_t size = 0;
    if (!arena || !dsm_arena_contains(arena, addr))
        return -1;
    if (dsm_arena_block_of(arena, addr, &start, &size) != DSM_OK)
        size = 0;   /* freed since: the last block recorded there */
    return coh_heap_sites_lookup(addr, start, size, out);
}

size_t coh_heap_block_pages(size_t index, size_t max)
{
    uintptr_t addr = (uintptr_t)coh_page_addr(index);
    if (!arena || !dsm_arena_contains(arena, addr))
        return max;
    return dsm_arena_pages_in_block(arena, addr, max);
}

/* Heap messages carry no page ranges or node numbers: only the reply's
 * slot is checked against a limit. */
static const coh_wire_limits_t heap_limits = {.slots = COH_MAX_SLOTS};

static void on_heap_free(int src, const void *payload, size_t len, void *arg)
{
    coh_msg_heap_t m;
    if (coh_wire_heap(payload, len, &heap_limits, 0, &m) != DSM_OK)
        dsm_fatal("malformed heap message from node %d", src);
    if (dsm_arena_free(arena, (uintptr_t)m.ptr) != DSM_OK)
        dsm_fatal("node %d freed %p, which is not a live block of node %d's "
                  "sharable heap", src, (void *)(uintptr_t)m.ptr, coh.rank);
}

static void on_heap_size_req(int src, const void *payload, size_t len,
                             void *arg)
{
    coh_msg_heap_t m;
    if (coh_wire_heap(payload, len, &heap_limits, 0, &m) != DSM_OK)
        dsm_fatal("malformed heap message from node %d", src);
    size_t size = 0;
    if (dsm_arena_usable_size(arena, (uintptr_t)m.ptr, &size) != DSM_OK)
        dsm_fatal("node %d reallocated %p, which is not a live block of "
                  "node %d's sharable heap", src, (void *)(uintptr_t)m.ptr,
                  coh.rank);
    m.value = size;
    dsm_status_t st = dsm_tp_am_send(src, COH_AM_HEAP_SIZE_REP, &m, sizeof m);
    if (st != DSM_OK)
        dsm_fatal("heap reply to node %d: %s", src, dsm_status_string(st));
}

static void on_heap_size_rep(int src, const void *payload, size_t len,
                             void *arg)
{
    coh_msg_heap_t m;
    if (coh_wire_heap(payload, len, &heap_limits, 1, &m) != DSM_OK)
        dsm_fatal("malformed heap message from node %d", src);
    coh_slot_reply(m.slot, m.value);
}

dsm_status_t coh_heap_register_handlers(void)
{
    dsm_status_t st;
    if ((st = coh_am_register(COH_AM_HEAP_FREE, on_heap_free)) != DSM_OK ||
        (st = coh_am_register(COH_AM_HEAP_SIZE_REQ, on_heap_size_req)) != DSM_OK ||
        (st = coh_am_register(COH_AM_HEAP_SIZE_REP, on_heap_size_rep)) != DSM_OK)
        return st;
    return DSM_OK;
}

/* ---- public API -------------------------------------------------------- */

void *dsm_aligned_alloc(size_t alignment, size_t size)
{
    uintptr_t p;
    if (!heap_up()) {
        errno = ENOMEM;
        return NULL;
    }
    if (alignment < 16)
        alignment = 16;
    if (alignment & (alignment - 1)) {
        errno = EINVAL;
        return NULL;
    }
    if (dsm_arena_alloc(arena, size, alignment, &p) != DSM_OK) {
        errno = ENOMEM;
        return NULL;
    }
    coh_heap_site_record((void *)p, size);
    return (void *)p;
}

void *dsm_malloc(size_t size) { return dsm_aligned_alloc(16, size); }

void *dsm_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = dsm_malloc(count * size);
    if (p)  /* a reused block may hold old data; written through the
             * application view so other nodes' copies get notices */
        memset(p, 0, count * size);
    return p;
}

static size_t block_size(void *ptr, int owner)
{
    size_t size = 0;
    if (owner == coh.rank) {
        if (dsm_arena_usable_size(arena, (uintptr_t)ptr, &size) != DSM_OK)
            dsm_fatal("dsm_realloc(%p): not a live sharable block", ptr);
        return size;
    }
    if (!coh.initialized)
        dsm_fatal("dsm_realloc(%p): a block of node %d's arena before this "
                  "node joined the job", ptr, owner);
    int s = coh_slot_self();
    coh.slots[s].done = 0;
    /* the caller's stack may be sharable: the transport gets a private
     * copy (design.md, "Locks and their order") */
    coh_msg_heap_t *m = &heap_msg_out;
    *m = (coh_msg_heap_t){(uint64_t)(uintptr_t)ptr, 0, (uint32_t)s, 0};
    dsm_status_t st = dsm_tp_am_send(owner, COH_AM_HEAP_SIZE_REQ, m,
                                     sizeof *m);
    if (st != DSM_OK)
        dsm_fatal("heap request to node %d: %s", owner, dsm_status_string(st));
    dsm_tp_wait_flag_on(&coh.slots[s].done, "a sharable block's size", owner,
                        DSM_ACTIVITY_ABOUT_NONE, 0, 0);
    return (size_t)coh.slots[s].value;
}

void dsm_free(void *ptr)
{
    if (!ptr || !heap_up())
        return;
    int owner = owner_of((uintptr_t)ptr);
    if (owner < 0)
        dsm_fatal("dsm_free(%p): not a sharable heap pointer", ptr);
    if (owner == coh.rank) {
        if (dsm_arena_free(arena, (uintptr_t)ptr) != DSM_OK)
            dsm_fatal("dsm_free(%p): not a live sharable block (double "
                      "free?)", ptr);
        return;
    }
    if (!coh.initialized)
        dsm_fatal("dsm_free(%p): a block of node %d's arena before this "
                  "node joined the job", ptr, owner);
    coh_msg_heap_t *m = &heap_msg_out;
    *m = (coh_msg_heap_t){(uint64_t)(uintptr_t)ptr, 0, 0, 0};
    dsm_status_t st = dsm_tp_am_send(owner, COH_AM_HEAP_FREE, m, sizeof *m);
    if (st != DSM_OK)
        dsm_fatal("heap message to node %d: %s", owner, dsm_status_string(st));
}

void *dsm_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return dsm_malloc(size);
    if (size == 0) {
        dsm_free(ptr);
        return NULL;
    }
    int owner = owner_of((uintptr_t)ptr);
    if (owner < 0)
        dsm_fatal("dsm_realloc(%p): not a sharable heap pointer", ptr);
    if (owner == coh.rank &&
        dsm_arena_resize_in_place(arena, (uintptr_t)ptr, size) == DSM_OK)
        return ptr;
    size_t old = block_size(ptr, owner);
    void *p = dsm_malloc(size);
    if (!p)
        return NULL;
    memcpy(p, ptr, old < size ? old : size);
    dsm_free(ptr);
    return p;
}

int dsm_is_sharable(const void *ptr)
{
    return coh.initialized && coh_page_index((uintptr_t)ptr) >= 0;
}

void *kmp_sharable_malloc(size_t size) { return dsm_malloc(size); }
void *kmp_aligned_sharable_malloc(size_t size)
{
    return dsm_aligned_alloc(64, size);
}
void *kmp_sharable_calloc(size_t count, size_t size)
{
    return dsm_calloc(count, size);
}
void *kmp_sharable_realloc(void *ptr, size_t size)
{
    return dsm_realloc(ptr, size);
}
void kmp_sharable_free(void *ptr) { dsm_free(ptr); }
int kmp_is_sharable(void *ptr) { return dsm_is_sharable(ptr); }
