/*
 * coh_arena.c - the allocator of one node's arena of the sharable heap.
 *
 * Layer: coherence.  Entry points are declared in coh_arena.h.  Called from
 * application threads (any, concurrently: one mutex per arena) and from
 * the heap and share handlers (coh_heap.c, coh_fault.c), which may run in
 * the fault handler's wait: the mutex is then taken in signal context.
 * That is safe only because no holder faults: the arena's memory is never
 * touched here, and nothing else is locked or waited for under the mutex.
 *
 * The arena's memory is never read or written here.  The metadata is one
 * private MAP_NORESERVE mapping made at create, whose pages the kernel
 * provides only when first touched:
 *   - a 4-byte tag per arena page: what the page is (head or tail of a free
 *     run, head of a large block, page of a slab, or inner page of a run);
 *   - an 8-byte free-list link per page, used only at heads of free runs;
 *   - a 48-byte slab descriptor per possible slab (at most one per page).
 *
 * Free page runs are coalesced at once (boundary tags at both ends) and kept
 * in segregated lists: runs of 1..31 pages in exact bins, longer runs in
 * bins 1/16 of a power of two wide.  A request looks in the first bin whose
 * every run is long enough (found with a bitmap, O(1)); only if all those are
 * empty does it scan the runs that might still fit.
 *
 * Small requests use 24 size classes from 16 to 2048 bytes.  A slab is a run
 * of 1-8 pages cut into equal blocks, with a free bitmap in its descriptor;
 * the slabs of a class with free blocks form a list.  Allocation takes the
 * lowest free block of the first slab on the list; a slab that becomes empty
 * goes back to the page runs at once, so freeing everything leaves one run.
 */
#include "coh_arena.h"

#include <pthread.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "base_log.h"
#include "sys_region.h"

#define MIN_ALIGN ((size_t)16)
#define NONE UINT32_MAX

/* A tag is a page kind in the top 3 bits and a value in the low 29. */
#define TAG_SHIFT 29
#define TAG_VALUE_MASK ((UINT32_C(1) << TAG_SHIFT) - 1)
#define MAX_PAGES TAG_VALUE_MASK

enum page_kind {
    PAGE_INNER = 0,     /* inside a run, or a slab page: see PAGE_SLAB */
    PAGE_FREE_HEAD = 1, /* first page of a free run; value = run length */
    PAGE_FREE_TAIL = 2, /* last page of a free run of >= 2; value = length */
    PAGE_LARGE = 3,     /* first page of a large block; value = length */
    PAGE_SLAB = 4,      /* any page of a slab; value = slab index */
};

/* Free-run bins: exact below 32 pages, then 16 per power of two up to
 * 2^28 pages (the longest run, MAX_PAGES, is below 2^29). */
#define EXACT_BINS 32
#define SUB_BINS_LOG 4
#define NBINS (EXACT_BINS + (TAG_SHIFT - 5) * (1 << SUB_BINS_LOG))
#define BINMAP_WORDS ((NBINS + 63) / 64)

#define NCLASSES 24
#define SLAB_MAX_BLOCKS 256
#define SLAB_MAX_PAGES 8

static const uint16_t class_sizes[NCLASSES] = {
    16,   32,   48,   64,   80,   96,   112,  128,
    160,  192,  224,  256,  320,  384,  448,  512,
    640,  768,  896,  1024, 1280, 1536, 1792, 2048,
};

struct slab {
    uint64_t free_bits[SLAB_MAX_BLOCKS / 64]; /* 1 = block free */
    uint32_t first_page;
    uint32_t next;          /* partial list of its class, or free list */
    uint32_t prev;
    uint16_t nfree;
    uint8_t cls;
};

struct run_link {
    uint32_t next;
    uint32_t prev;
};

struct size_class {
    uint32_t size;
    uint16_t pages;
    uint16_t blocks;
    uint32_t partial;       /* first slab with a free block, or NONE */
};

struct dsm_arena {
    pthread_mutex_t lock;
    uintptr_t lo;
    uintptr_t hi;
    uint32_t npages;
    uint32_t *tags;
    struct run_link *links;
    struct slab *slabs;
    uint32_t slabs_made;    /* descriptors ever touched */
    uint32_t slab_free;     /* list of released descriptors */
    uint32_t bin_head[NBINS];
    uint64_t bin_map[BINMAP_WORDS];
    struct size_class classes[NCLASSES];
    uint8_t class_of_size[DSM_ARENA_SMALL_MAX / MIN_ALIGN + 1];
    size_t bytes_in_use;
    size_t blocks_in_use;
    size_t free_pages;
    size_t meta_len;
};

static inline uint32_t make_tag(enum page_kind kind, uint32_t value)
{
    return ((uint32_t)kind << TAG_SHIFT) | value;
}

static inline enum page_kind tag_kind(uint32_t tag)
{
    return (enum page_kind)(tag >> TAG_SHIFT);
}

static inline uint32_t tag_value(uint32_t tag)
{
    return tag & TAG_VALUE_MASK;
}

static inline uintptr_t page_addr(const dsm_arena_t *a, uint32_t page)
{
    return a->lo + ((uintptr_t)page << DSM_PAGE_SHIFT);
}

static size_t round_up(size_t v, size_t to)
{
    return (v + to - 1) / to * to;
}

/* ---- free page runs ---------------------------------------------------- */

static unsigned bin_of(uint32_t len)
{
    if (len < EXACT_BINS)
        return len;
    unsigned top = 31u - (unsigned)__builtin_clz(len);
    unsigned sub = (len >> (top - SUB_BINS_LOG)) & ((1u << SUB_BINS_LOG) - 1);
    return EXACT_BINS + (top - 5) * (1u << SUB_BINS_LOG) + sub;
}

/* The first bin all of whose runs hold at least len pages (NBINS if none). */
static unsigned bin_all_fit(uint64_t len)
{
    if (len < EXACT_BINS)
        return (unsigned)len;
    if (len > MAX_PAGES)
        return NBINS;
    unsigned top = 63u - (unsigned)__builtin_clzll(len);
    uint64_t rounded = len + (UINT64_C(1) << (top - SUB_BINS_LOG)) - 1;
    return rounded > MAX_PAGES ? NBINS : bin_of((uint32_t)rounded);
}

static unsigned next_nonempty_bin(const dsm_arena_t *a, unsigned from)
{
    if (from >= NBINS)
        return NBINS;
    for (unsigned w = from / 64; w < BINMAP_WORDS; w++) {
        uint64_t bits = a->bin_map[w];
        if (w == from / 64)
            bits &= ~UINT64_C(0) << (from % 64);
        if (bits)
            return w * 64 + (unsigned)__builtin_ctzll(bits);
    }
    return NBINS;
}

/* Record [head, head+len) as a free run; its neighbours must not be free. */
static void run_insert(dsm_arena_t *a, uint32_t head, uint32_t len)
{
    unsigned bin = bin_of(len);
    a->tags[head] = make_tag(PAGE_FREE_HEAD, len);
    if (len > 1)
        a->tags[head + len - 1] = make_tag(PAGE_FREE_TAIL, len);
    a->links[head].prev = NONE;
    a->links[head].next = a->bin_head[bin];
    if (a->bin_head[bin] != NONE)
        a->links[a->bin_head[bin]].prev = head;
    a->bin_head[bin] = head;
    a->bin_map[bin / 64] |= UINT64_C(1) << (bin % 64);
    a->free_pages += len;
}

/* Forget the free run at head; its boundary tags become inner pages. */
static void run_remove(dsm_arena_t *a, uint32_t head)
{
    uint32_t len = tag_value(a->tags[head]);
    unsigned bin = bin_of(len);
    struct run_link link = a->links[head];
    if (link.prev != NONE)
        a->links[link.prev].next = link.next;
    else
        a->bin_head[bin] = link.next;
    if (link.next != NONE)
        a->links[link.next].prev = link.prev;
    if (a->bin_head[bin] == NONE)
        a->bin_map[bin / 64] &= ~(UINT64_C(1) << (bin % 64));
    a->tags[head] = make_tag(PAGE_INNER, 0);
    a->tags[head + len - 1] = make_tag(PAGE_INNER, 0);
    a->free_pages -= len;
}

/* The first page at or after page whose address is a multiple of
 * align_pages pages (align_pages a power of two). */
static uint64_t aligned_page(const dsm_arena_t *a, uint32_t page,
                             uint64_t align_pages)
{
    uint64_t abs = (a->lo >> DSM_PAGE_SHIFT) + page;
    uint64_t up = (abs + align_pages - 1) & ~(align_pages - 1);
    return page + (up - abs);
}

static bool run_fits(const dsm_arena_t *a, uint32_t head, uint32_t npages,
                     uint64_t align_pages, uint32_t *start)
{
    uint64_t end = (uint64_t)head + tag_value(a->tags[head]);
    uint64_t first = aligned_page(a, head, align_pages);
    if (first + npages > end)
        return false;
    *start = (uint32_t)first;
    return true;
}

/* Take npages pages aligned to align_pages out of the free runs; the pages
 * come back as inner pages, for the caller to tag. */
static bool pages_take(dsm_arena_t *a, uint32_t npages, uint64_t align_pages,
                       uint32_t *out)
{
    uint32_t head = NONE;
    uint32_t start = 0;
    uint64_t need = (uint64_t)npages + align_pages - 1;
    unsigned bin = next_nonempty_bin(a, bin_all_fit(need));
    if (bin < NBINS) {
        head = a->bin_head[bin];
        run_fits(a, head, npages, align_pages, &start);
    } else {
        /* Slow path: runs that are long enough only for some positions. */
        for (bin = next_nonempty_bin(a, bin_of(npages)); bin < NBINS && head == NONE;
             bin = next_nonempty_bin(a, bin + 1)) {
            for (uint32_t h = a->bin_head[bin]; h != NONE; h = a->links[h].next) {
                if (run_fits(a, h, npages, align_pages, &start)) {
                    head = h;
                    break;
                }
            }
        }
        if (head == NONE)
            return false;
    }
    uint32_t end = head + tag_value(a->tags[head]);
    run_remove(a, head);
    if (start > head)
        run_insert(a, head, start - head);
    if (start + npages < end)
        run_insert(a, start + npages, end - (start + npages));
    *out = start;
    return true;
}

/* Return [page, page+npages), all inner pages, merging with free neighbours. */
static void pages_give_back(dsm_arena_t *a, uint32_t page, uint32_t npages)
{
    if (page > 0) {
        uint32_t left = a->tags[page - 1];
        if (tag_kind(left) == PAGE_FREE_HEAD || tag_kind(left) == PAGE_FREE_TAIL) {
            uint32_t len = tag_value(left);
            uint32_t head = page - len;
            run_remove(a, head);
            page = head;
            npages += len;
        }
    }
    uint32_t right = page + npages;
    if (right < a->npages && tag_kind(a->tags[right]) == PAGE_FREE_HEAD) {
        uint32_t len = tag_value(a->tags[right]);
        run_remove(a, right);
        npages += len;
    }
    run_insert(a, page, npages);
}

/* ---- slabs ------------------------------------------------------------- */

static void partial_push(dsm_arena_t *a, uint32_t idx)
{
    struct slab *slab = &a->slabs[idx];
    struct size_class *c = &a->classes[slab->cls];
    slab->prev = NONE;
    slab->next = c->partial;
    if (c->partial != NONE)
        a->slabs[c->partial].prev = idx;
    c->partial = idx;
}

static void partial_remove(dsm_arena_t *a, uint32_t idx)
{
    struct slab *slab = &a->slabs[idx];
    if (slab->prev != NONE)
        a->slabs[slab->prev].next = slab->next;
    else
        a->classes[slab->cls].partial = slab->next;
    if (slab->next != NONE)
        a->slabs[slab->next].prev = slab->prev;
}

static bool slab_new(dsm_arena_t *a, unsigned cls)
{
    const struct size_class *c = &a->classes[cls];
    uint32_t idx = a->slab_free;
    if (idx != NONE)
        a->slab_free = a->slabs[idx].next;
    else if (a->slabs_made < a->npages)
        idx = a->slabs_made++;
    else
        return false;

    uint32_t first;
    if (!pages_take(a, c->pages, 1, &first)) {
        a->slabs[idx].next = a->slab_free;
        a->slab_free = idx;
        return false;
    }
    for (uint32_t p = 0; p < c->pages; p++)
        a->tags[first + p] = make_tag(PAGE_SLAB, idx);

    struct slab *slab = &a->slabs[idx];
    for (unsigned w = 0; w < SLAB_MAX_BLOCKS / 64; w++) {
        unsigned lo_bit = w * 64;
        if (c->blocks >= lo_bit + 64)
            slab->free_bits[w] = ~UINT64_C(0);
        else if (c->blocks > lo_bit)
            slab->free_bits[w] = (UINT64_C(1) << (c->blocks - lo_bit)) - 1;
        else
            slab->free_bits[w] = 0;
    }
    slab->first_page = first;
    slab->nfree = c->blocks;
    slab->cls = (uint8_t)cls;
    partial_push(a, idx);
    return true;
}

static void slab_release(dsm_arena_t *a, uint32_t idx)
{
    struct slab *slab = &a->slabs[idx];
    uint32_t pages = a->classes[slab->cls].pages;
    partial_remove(a, idx);
    for (uint32_t p = 0; p < pages; p++)
        a->tags[slab->first_page + p] = make_tag(PAGE_INNER, 0);
    pages_give_back(a, slab->first_page, pages);
    slab->next = a->slab_free;
    a->slab_free = idx;
}

/* Smallest class holding size bytes whose blocks are aligned to align
 * (align <= DSM_ARENA_SMALL_MAX: the 2048 class is always aligned). */
static unsigned class_for(const dsm_arena_t *a, size_t size, size_t align)
{
    unsigned cls = a->class_of_size[(size + MIN_ALIGN - 1) / MIN_ALIGN];
    while (a->classes[cls].size & (align - 1))
        cls++;
    return cls;
}

/* Fewest pages (1..8) wasting at most 1/32 of the slab, else least waste. */
static void class_geometry(struct size_class *c)
{
    unsigned best_pages = 1;
    size_t best_waste_num = SIZE_MAX, best_waste_den = 1;
    for (unsigned pages = 1; pages <= SLAB_MAX_PAGES; pages++) {
        size_t bytes = pages * DSM_PAGE_SIZE;
        size_t blocks = bytes / c->size;
        if (blocks > SLAB_MAX_BLOCKS)
            break;
        size_t waste = bytes - blocks * c->size;
        if (waste * 32 <= bytes) {
            best_pages = pages;
            break;
        }
        if (waste * best_waste_den < best_waste_num * bytes) {
            best_pages = pages;
            best_waste_num = waste;
            best_waste_den = bytes;
        }
    }
    c->pages = (uint16_t)best_pages;
    c->blocks = (uint16_t)(best_pages * DSM_PAGE_SIZE / c->size);
    c->partial = NONE;
}

/* ---- looking up a block ------------------------------------------------ */

struct block {
    uint32_t page;          /* first page of the block, or of its slab */
    uint32_t slab;          /* slab index, NONE for a large block */
    uint32_t index;         /* block number in its slab */
    size_t usable;
};

/* DSM_OK with *out when ptr is a live block of this arena. */
static dsm_status_t block_lookup(const dsm_arena_t *a, uintptr_t ptr,
                                 struct block *out)
{
    if (ptr < a->lo || ptr >= a->hi)
        return DSM_ERR_INVALID;
    uint32_t page = (uint32_t)((ptr - a->lo) >> DSM_PAGE_SHIFT);
    uint32_t tag = a->tags[page];
    switch (tag_kind(tag)) {
    case PAGE_LARGE:
        if (ptr != page_addr(a, page))
            return DSM_ERR_INVALID;
        out->page = page;
        out->slab = NONE;
        out->index = 0;
        out->usable = (size_t)tag_value(tag) << DSM_PAGE_SHIFT;
        return DSM_OK;
    case PAGE_SLAB: {
        uint32_t idx = tag_value(tag);
        const struct slab *slab = &a->slabs[idx];
        const struct size_class *c = &a->classes[slab->cls];
        uintptr_t offset = ptr - page_addr(a, slab->first_page);
        uintptr_t index = offset / c->size;
        if (index * c->size != offset || index >= c->blocks)
            return DSM_ERR_INVALID;
        if (slab->free_bits[index / 64] & (UINT64_C(1) << (index % 64)))
            return DSM_ERR_INVALID;     /* a free block: double free */
        out->page = slab->first_page;
        out->slab = idx;
        out->index = (uint32_t)index;
        out->usable = c->size;
        return DSM_OK;
    }
    default:
        return DSM_ERR_INVALID;
    }
}

/* The live block holding addr, anywhere inside it; lock held. */
static dsm_status_t block_around(const dsm_arena_t *a, uintptr_t addr,
                                 uintptr_t *start, size_t *usable)
{
    if (addr < a->lo || addr >= a->hi)
        return DSM_ERR_INVALID;
    uint32_t page = (uint32_t)((addr - a->lo) >> DSM_PAGE_SHIFT);
    uint32_t tag = a->tags[page];
    if (tag_kind(tag) == PAGE_SLAB) {
        const struct slab *slab = &a->slabs[tag_value(tag)];
        const struct size_class *c = &a->classes[slab->cls];
        uintptr_t index = (addr - page_addr(a, slab->first_page)) / c->size;
        if (index >= c->blocks ||
            (slab->free_bits[index / 64] & (UINT64_C(1) << (index % 64))))
            return DSM_ERR_INVALID;
        *start = page_addr(a, slab->first_page) + index * c->size;
        *usable = c->size;
        return DSM_OK;
    }
    /* inner pages of a large block (or of a free run) lead back to its
     * head */
    while (tag_kind(tag) == PAGE_INNER && page > 0)
        tag = a->tags[--page];
    if (tag_kind(tag) != PAGE_LARGE ||
        addr - page_addr(a, page) >= (size_t)tag_value(tag) << DSM_PAGE_SHIFT)
        return DSM_ERR_INVALID;
    *start = page_addr(a, page);
    *usable = (size_t)tag_value(tag) << DSM_PAGE_SHIFT;
    return DSM_OK;
}

/* ---- entry points ------------------------------------------------------ */

dsm_status_t dsm_arena_create(uintptr_t lo, uintptr_t hi, dsm_arena_t **out)
{
    if (out == NULL || lo == 0 || lo >= hi || (lo | hi) & (DSM_PAGE_SIZE - 1))
        return DSM_ERR_INVALID;
    if (((hi - lo) >> DSM_PAGE_SHIFT) > MAX_PAGES)
        return DSM_ERR_INVALID;
    uint32_t npages = (uint32_t)((hi - lo) >> DSM_PAGE_SHIFT);

    size_t header = round_up(sizeof(dsm_arena_t), 64);
    size_t tags_len = round_up((size_t)npages * sizeof(uint32_t), 64);
    size_t links_len = round_up((size_t)npages * sizeof(struct run_link), 64);
    size_t slabs_len = (size_t)npages * sizeof(struct slab);
    size_t meta_len = round_up(header + tags_len + links_len + slabs_len,
                               DSM_PAGE_SIZE);
    char *meta = mmap(NULL, meta_len, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (meta == MAP_FAILED)
        return DSM_ERR_NOMEM;

    /* Sparse touches must stay sparse where huge pages are "always" on. */
    madvise(meta, meta_len, MADV_NOHUGEPAGE);

    /* The mapping is zeroed: every tag starts as an inner page. */
    dsm_arena_t *a = (dsm_arena_t *)meta;
    if (pthread_mutex_init(&a->lock, NULL) != 0) {
        munmap(meta, meta_len);
        return DSM_ERR_NOMEM;
    }
    a->lo = lo;
    a->hi = hi;
    a->npages = npages;
    a->tags = (uint32_t *)(meta + header);
    a->links = (struct run_link *)(meta + header + tags_len);
    a->slabs = (struct slab *)(meta + header + tags_len + links_len);
    a->slabs_made = 0;
    a->slab_free = NONE;
    a->meta_len = meta_len;
    for (unsigned b = 0; b < NBINS; b++)
        a->bin_head[b] = NONE;
    for (unsigned cls = 0; cls < NCLASSES; cls++) {
        a->classes[cls].size = class_sizes[cls];
        class_geometry(&a->classes[cls]);
    }
    unsigned cls = 0;
    for (size_t i = 0; i <= DSM_ARENA_SMALL_MAX / MIN_ALIGN; i++) {
        while (class_sizes[cls] < i * MIN_ALIGN)
            cls++;
        a->class_of_size[i] = (uint8_t)cls;
    }
    run_insert(a, 0, npages);
    *out = a;
    return DSM_OK;
}

void dsm_arena_destroy(dsm_arena_t *arena)
{
    if (arena == NULL)
        return;
    pthread_mutex_destroy(&arena->lock);
    munmap(arena, arena->meta_len);
}

static dsm_status_t alloc_small(dsm_arena_t *a, size_t size, size_t align,
                                uintptr_t *out)
{
    unsigned cls = class_for(a, size, align);
    struct size_class *c = &a->classes[cls];
    if (c->partial == NONE && !slab_new(a, cls))
        return DSM_ERR_NOMEM;
    uint32_t idx = c->partial;
    struct slab *slab = &a->slabs[idx];
    unsigned w = 0;
    while (slab->free_bits[w] == 0)
        w++;
    unsigned bit = (unsigned)__builtin_ctzll(slab->free_bits[w]);
    slab->free_bits[w] &= ~(UINT64_C(1) << bit);
    if (--slab->nfree == 0)
        partial_remove(a, idx);
    a->bytes_in_use += c->size;
    a->blocks_in_use++;
    *out = page_addr(a, slab->first_page) + (uintptr_t)(w * 64 + bit) * c->size;
    return DSM_OK;
}

static dsm_status_t alloc_large(dsm_arena_t *a, size_t size, size_t align,
                                uintptr_t *out)
{
    uint32_t npages = (uint32_t)((size + DSM_PAGE_SIZE - 1) >> DSM_PAGE_SHIFT);
    uint64_t align_pages = align > DSM_PAGE_SIZE ? align >> DSM_PAGE_SHIFT : 1;
    uint32_t first;
    if (!pages_take(a, npages, align_pages, &first))
        return DSM_ERR_NOMEM;
    a->tags[first] = make_tag(PAGE_LARGE, npages);
    a->bytes_in_use += (size_t)npages << DSM_PAGE_SHIFT;
    a->blocks_in_use++;
    *out = page_addr(a, first);
    return DSM_OK;
}

dsm_status_t dsm_arena_alloc(dsm_arena_t *arena, size_t size,
                             size_t alignment, uintptr_t *out)
{
    if (arena == NULL || out == NULL || (alignment & (alignment - 1)))
        return DSM_ERR_INVALID;
    if (alignment < MIN_ALIGN)
        alignment = MIN_ALIGN;
    if (size == 0)
        size = 1;
    if (size > arena->hi - arena->lo)
        return DSM_ERR_NOMEM;

    dsm_status_t status;
    pthread_mutex_lock(&arena->lock);
    if (size <= DSM_ARENA_SMALL_MAX && alignment <= DSM_ARENA_SMALL_MAX)
        status = alloc_small(arena, size, alignment, out);
    else
        status = alloc_large(arena, size, alignment, out);
    pthread_mutex_unlock(&arena->lock);
    return status;
}

dsm_status_t dsm_arena_free(dsm_arena_t *arena, uintptr_t ptr)
{
    if (arena == NULL)
        return DSM_ERR_INVALID;
    pthread_mutex_lock(&arena->lock);
    struct block b;
    dsm_status_t status = block_lookup(arena, ptr, &b);
    if (status == DSM_OK) {
        if (b.slab == NONE) {
            uint32_t npages = (uint32_t)(b.usable >> DSM_PAGE_SHIFT);
            arena->tags[b.page] = make_tag(PAGE_INNER, 0);
            pages_give_back(arena, b.page, npages);
        } else {
            struct slab *slab = &arena->slabs[b.slab];
            slab->free_bits[b.index / 64] |= UINT64_C(1) << (b.index % 64);
            slab->nfree++;
            if (slab->nfree == 1)
                partial_push(arena, b.slab);
            if (slab->nfree == arena->classes[slab->cls].blocks)
                slab_release(arena, b.slab);
        }
        arena->bytes_in_use -= b.usable;
        arena->blocks_in_use--;
    }
    pthread_mutex_unlock(&arena->lock);
    return status;
}

dsm_status_t dsm_arena_usable_size(dsm_arena_t *arena, uintptr_t ptr,
                                   size_t *out)
{
    if (arena == NULL || out == NULL)
        return DSM_ERR_INVALID;
    pthread_mutex_lock(&arena->lock);
    struct block b;
    dsm_status_t status = block_lookup(arena, ptr, &b);
    pthread_mutex_unlock(&arena->lock);
    if (status == DSM_OK)
        *out = b.usable;
    return status;
}

size_t dsm_arena_pages_in_block(dsm_arena_t *arena, uintptr_t addr,
                                size_t max)
{
    if (max <= 1 || addr < arena->lo || addr >= arena->hi)
        return 1;
    pthread_mutex_lock(&arena->lock);
    uint32_t page = (uint32_t)((addr - arena->lo) >> DSM_PAGE_SHIFT);
    uint32_t first_tag = arena->tags[page];
    size_t n = 1;
    while (n < max && page + n < arena->npages) {
        uint32_t tag = arena->tags[page + n];
        enum page_kind kind = tag_kind(tag);
        /* a new block, a new free run, or another slab */
        if (kind == PAGE_LARGE || kind == PAGE_FREE_HEAD ||
            (kind == PAGE_SLAB && tag != first_tag))
            break;
        n++;
    }
    pthread_mutex_unlock(&arena->lock);
    return n;
}

int dsm_arena_contains(const dsm_arena_t *arena, uintptr_t ptr)
{
    return arena != NULL && ptr >= arena->lo && ptr < arena->hi;
}

/* Grow the large block at page from have to want pages into the free run
 * that follows it, if that run is long enough. */
static dsm_status_t large_grow(dsm_arena_t *a, uint32_t page, uint32_t have,
                               uint32_t want)
{
    uint32_t next = page + have;
    uint32_t extra = want - have;
    if (next >= a->npages || tag_kind(a->tags[next]) != PAGE_FREE_HEAD)
        return DSM_ERR_NOMEM;
    uint32_t len = tag_value(a->tags[next]);
    if (len < extra)
        return DSM_ERR_NOMEM;
    run_remove(a, next);
    if (len > extra)
        run_insert(a, next + extra, len - extra);
    a->tags[page] = make_tag(PAGE_LARGE, want);
    return DSM_OK;
}

dsm_status_t dsm_arena_resize_in_place(dsm_arena_t *arena, uintptr_t ptr,
                                       size_t new_size)
{
    if (arena == NULL)
        return DSM_ERR_INVALID;
    if (new_size == 0)
        new_size = 1;
    pthread_mutex_lock(&arena->lock);
    struct block b;
    dsm_status_t status = block_lookup(arena, ptr, &b);
    if (status != DSM_OK)
        goto out_unlock;
    if (new_size <= b.usable && b.slab != NONE)
        goto out_unlock;    /* a slab block keeps its class */
    if (b.slab != NONE || new_size > arena->hi - arena->lo) {
        status = DSM_ERR_NOMEM;
        goto out_unlock;
    }

    uint32_t have = (uint32_t)(b.usable >> DSM_PAGE_SHIFT);
    uint32_t want = (uint32_t)((new_size + DSM_PAGE_SIZE - 1) >> DSM_PAGE_SHIFT);
    if (want < have) {
        arena->tags[b.page] = make_tag(PAGE_LARGE, want);
        pages_give_back(arena, b.page + want, have - want);
    } else if (want > have) {
        status = large_grow(arena, b.page, have, want);
    }
    if (status == DSM_OK) {
        arena->bytes_in_use -= b.usable;
        arena->bytes_in_use += (size_t)want << DSM_PAGE_SHIFT;
    }
out_unlock:
    pthread_mutex_unlock(&arena->lock);
    return status;
}

void dsm_arena_usage(dsm_arena_t *arena, dsm_arena_usage_t *out)
{
    pthread_mutex_lock(&arena->lock);
    size_t largest = 0;
    unsigned top = NBINS;
    for (unsigned w = BINMAP_WORDS; w-- > 0 && top == NBINS;)
        if (arena->bin_map[w])
            top = w * 64 + 63u - (unsigned)__builtin_clzll(arena->bin_map[w]);
    if (top < NBINS)
        for (uint32_t h = arena->bin_head[top]; h != NONE; h = arena->links[h].next)
            if (tag_value(arena->tags[h]) > largest)
                largest = tag_value(arena->tags[h]);
    out->bytes_in_use = arena->bytes_in_use;
    out->blocks_in_use = arena->blocks_in_use;
    out->bytes_free = arena->free_pages << DSM_PAGE_SHIFT;
    out->largest_free = largest << DSM_PAGE_SHIFT;
    pthread_mutex_unlock(&arena->lock);
}

/* ---- invariant checker ------------------------------------------------- */

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond)) {                                                        \
            dsm_log(DSM_LOG_ERROR, "arena check failed: %s (%s:%d)", #cond,   \
                    __FILE__, __LINE__);                                      \
            return 0;                                                         \
        }                                                                     \
    } while (0)

static int inner_pages_clear(const dsm_arena_t *a, uint32_t from, uint32_t to)
{
    for (uint32_t p = from; p < to; p++)
        CHECK(a->tags[p] == make_tag(PAGE_INNER, 0));
    return 1;
}

struct check_totals {
    size_t free_pages;
    size_t bytes_in_use;
    size_t blocks_in_use;
    size_t slabs_live;
    size_t runs_in_bin[NBINS];
    size_t partial_in_class[NCLASSES];
};

static int check_slab(const dsm_arena_t *a, uint32_t page,
                      struct check_totals *t)
{
    uint32_t idx = tag_value(a->tags[page]);
    CHECK(idx < a->slabs_made);
    const struct slab *slab = &a->slabs[idx];
    CHECK(slab->first_page == page && slab->cls < NCLASSES);
    const struct size_class *c = &a->classes[slab->cls];
    CHECK(page + c->pages <= a->npages);
    for (uint32_t p = page; p < page + c->pages; p++)
        CHECK(a->tags[p] == a->tags[page]);
    unsigned set = 0;
    for (unsigned w = 0; w < SLAB_MAX_BLOCKS / 64; w++)
        set += (unsigned)__builtin_popcountll(slab->free_bits[w]);
    for (unsigned b = c->blocks; b < SLAB_MAX_BLOCKS; b++)
        CHECK(!(slab->free_bits[b / 64] & (UINT64_C(1) << (b % 64))));
    CHECK(set == slab->nfree && slab->nfree < c->blocks);
    if (slab->nfree > 0)
        t->partial_in_class[slab->cls]++;
    t->bytes_in_use += (size_t)(c->blocks - slab->nfree) * c->size;
    t->blocks_in_use += c->blocks - slab->nfree;
    t->slabs_live++;
    return 1;
}

/* Walk the pages run by run; returns the page after the run, 0 on error. */
static uint32_t check_run(const dsm_arena_t *a, uint32_t page, bool *prev_free,
                          struct check_totals *t)
{
    uint32_t tag = a->tags[page];
    uint32_t len = tag_value(tag);
    switch (tag_kind(tag)) {
    case PAGE_FREE_HEAD:
        CHECK(!*prev_free);     /* neighbours are always coalesced */
        CHECK(len > 0 && len <= a->npages - page);
        if (len > 1)
            CHECK(a->tags[page + len - 1] == make_tag(PAGE_FREE_TAIL, len));
        CHECK(len < 3 || inner_pages_clear(a, page + 1, page + len - 1));
        t->free_pages += len;
        t->runs_in_bin[bin_of(len)]++;
        *prev_free = true;
        return page + len;
    case PAGE_LARGE:
        CHECK(len > 0 && len <= a->npages - page);
        CHECK(inner_pages_clear(a, page + 1, page + len));
        t->bytes_in_use += (size_t)len << DSM_PAGE_SHIFT;
        t->blocks_in_use++;
        *prev_free = false;
        return page + len;
    case PAGE_SLAB:
        CHECK(check_slab(a, page, t));
        *prev_free = false;
        return page + a->classes[a->slabs[len].cls].pages;
    default:
        CHECK(!"a run starts with an inner or tail page");
    }
    return 0;
}

static int check_lists(const dsm_arena_t *a, const struct check_totals *t)
{
    for (unsigned bin = 0; bin < NBINS; bin++) {
        bool listed = (a->bin_map[bin / 64] >> (bin % 64)) & 1;
        CHECK(listed == (a->bin_head[bin] != NONE));
        size_t n = 0;
        uint32_t prev = NONE;
        for (uint32_t h = a->bin_head[bin]; h != NONE; h = a->links[h].next) {
            CHECK(++n <= t->runs_in_bin[bin]);
            CHECK(h < a->npages && tag_kind(a->tags[h]) == PAGE_FREE_HEAD);
            CHECK(bin_of(tag_value(a->tags[h])) == bin);
            CHECK(a->links[h].prev == prev);
            prev = h;
        }
        CHECK(n == t->runs_in_bin[bin]);
    }
    for (unsigned cls = 0; cls < NCLASSES; cls++) {
        size_t n = 0;
        uint32_t prev = NONE;
        for (uint32_t s = a->classes[cls].partial; s != NONE; s = a->slabs[s].next) {
            CHECK(++n <= t->partial_in_class[cls]);
            CHECK(s < a->slabs_made && a->slabs[s].cls == cls);
            CHECK(a->slabs[s].nfree > 0 && a->slabs[s].prev == prev);
            CHECK(a->tags[a->slabs[s].first_page] == make_tag(PAGE_SLAB, s));
            prev = s;
        }
        CHECK(n == t->partial_in_class[cls]);
    }
    size_t released = 0;
    for (uint32_t s = a->slab_free; s != NONE; s = a->slabs[s].next)
        CHECK(++released + t->slabs_live <= a->slabs_made);
    CHECK(released + t->slabs_live == a->slabs_made);
    return 1;
}

static int check_locked(const dsm_arena_t *a)
{
    struct check_totals t = {0};
    bool prev_free = false;
    for (uint32_t page = 0; page < a->npages;) {
        page = check_run(a, page, &prev_free, &t);
        if (page == 0)
            return 0;
    }
    CHECK(t.free_pages == a->free_pages);
    CHECK(t.bytes_in_use == a->bytes_in_use);
    CHECK(t.blocks_in_use == a->blocks_in_use);
    return check_lists(a, &t);
}

int dsm_arena_check(dsm_arena_t *arena)
{
    pthread_mutex_lock(&arena->lock);
    int ok = check_locked(arena);
    pthread_mutex_unlock(&arena->lock);
    return ok;
}

dsm_status_t dsm_arena_block_of(dsm_arena_t *arena, uintptr_t addr,
                                uintptr_t *start, size_t *usable)
{
    if (arena == NULL || start == NULL || usable == NULL)
        return DSM_ERR_INVALID;
    pthread_mutex_lock(&arena->lock);
    dsm_status_t st = block_around(arena, addr, start, usable);
    pthread_mutex_unlock(&arena->lock);
    return st;
}
