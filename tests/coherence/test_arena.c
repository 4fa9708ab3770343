/*
 * test_arena.c - unit tests of the sharable-heap arena allocator (coh_arena).
 *
 * Suite: coherence.  Every arena is laid over a PROT_NONE mapping, so an
 * allocator that read or wrote the memory it manages would crash the test.
 * As the blocks cannot hold patterns, overlap is checked with an interval set
 * of the live blocks kept by the test.  One test prints the mean cost of an
 * alloc+free pair; it asserts nothing about time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base_time.h"
#include "coh_arena.h"
#include "sys_region.h"

#define PAGE DSM_PAGE_SIZE
#define SMALL_MAX DSM_ARENA_SMALL_MAX
#define MAX_SLAB_PAGES 8    /* upper bound on a slab's pages, per the design */
#define RESERVE_ALIGN ((size_t)1 << 20)

/* ---- fixture: an arena over an inaccessible reservation ---------------- */

struct fixture {
    void *map;
    size_t map_len;
    uintptr_t lo;
    uintptr_t hi;
    dsm_arena_t *arena;
};

/* lo is aligned to 1 MiB so that alignments up to that are exercised on a
 * known base. */
static struct fixture *fixture_new(size_t bytes)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    assert_non_null(fx);
    fx->map_len = bytes + RESERVE_ALIGN;
    fx->map = mmap(NULL, fx->map_len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    assert_true(fx->map != MAP_FAILED);
    fx->lo = ((uintptr_t)fx->map + RESERVE_ALIGN - 1) & ~(RESERVE_ALIGN - 1);
    fx->hi = fx->lo + bytes;
    assert_int_equal(dsm_arena_create(fx->lo, fx->hi, &fx->arena), DSM_OK);
    return fx;
}

static void fixture_free(struct fixture *fx)
{
    dsm_arena_destroy(fx->arena);
    munmap(fx->map, fx->map_len);
    free(fx);
}

static int setup_16m(void **state)
{
    *state = fixture_new((size_t)16 << 20);
    return 0;
}

static int setup_4m(void **state)
{
    *state = fixture_new((size_t)4 << 20);
    return 0;
}

static int setup_1m(void **state)
{
    *state = fixture_new((size_t)1 << 20);
    return 0;
}

static int setup_64_pages(void **state)
{
    *state = fixture_new(64 * PAGE);
    return 0;
}

static int teardown(void **state)
{
    fixture_free(*state);
    return 0;
}

/* ---- interval set of live blocks --------------------------------------- */

struct interval_set {
    uintptr_t *start;
    uintptr_t *end;
    size_t n;
    size_t cap;
};

static size_t iset_lower_bound(const struct interval_set *s, uintptr_t start)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->start[mid] < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* 1 when [start, end) overlaps no interval of the set (it is then added). */
static int iset_insert(struct interval_set *s, uintptr_t start, uintptr_t end)
{
    size_t pos = iset_lower_bound(s, start);
    if ((pos > 0 && s->end[pos - 1] > start) || (pos < s->n && s->start[pos] < end))
        return 0;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->start = realloc(s->start, s->cap * sizeof(*s->start));
        s->end = realloc(s->end, s->cap * sizeof(*s->end));
        if (s->start == NULL || s->end == NULL)
            abort();
    }
    memmove(&s->start[pos + 1], &s->start[pos], (s->n - pos) * sizeof(*s->start));
    memmove(&s->end[pos + 1], &s->end[pos], (s->n - pos) * sizeof(*s->end));
    s->start[pos] = start;
    s->end[pos] = end;
    s->n++;
    return 1;
}

/* 1 when an interval starting at start was there (it is then removed). */
static int iset_remove(struct interval_set *s, uintptr_t start)
{
    size_t pos = iset_lower_bound(s, start);
    if (pos == s->n || s->start[pos] != start)
        return 0;
    memmove(&s->start[pos], &s->start[pos + 1], (s->n - pos - 1) * sizeof(*s->start));
    memmove(&s->end[pos], &s->end[pos + 1], (s->n - pos - 1) * sizeof(*s->end));
    s->n--;
    return 1;
}

static void iset_clear(struct interval_set *s)
{
    free(s->start);
    free(s->end);
    memset(s, 0, sizeof(*s));
}

/* ---- live blocks, as the model sees them ------------------------------- */

struct live {
    uintptr_t ptr;
    size_t size;
    size_t usable;
};

struct model {
    struct live *blocks;
    size_t n;
    size_t cap;
    struct interval_set set;
    size_t bytes_in_use;
};

static void model_add(struct model *m, uintptr_t ptr, size_t size, size_t usable)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->blocks = realloc(m->blocks, m->cap * sizeof(*m->blocks));
        assert_non_null(m->blocks);
    }
    m->blocks[m->n++] = (struct live){ptr, size, usable};
    m->bytes_in_use += usable;
}

static void model_drop(struct model *m, size_t i)
{
    m->bytes_in_use -= m->blocks[i].usable;
    m->blocks[i] = m->blocks[--m->n];
}

static void model_clear(struct model *m)
{
    free(m->blocks);
    iset_clear(&m->set);
    memset(m, 0, sizeof(*m));
}

/* Check everything a caller may rely on about a fresh block; record it. */
static void record_block(struct fixture *fx, struct model *m, uintptr_t ptr,
                         size_t size, size_t align)
{
    size_t usable = 0;
    assert_int_equal(dsm_arena_usable_size(fx->arena, ptr, &usable), DSM_OK);
    size_t min_align = align < 16 ? 16 : align;
    assert_int_equal(ptr % min_align, 0);
    assert_true(usable >= size && usable > 0);
    assert_true(ptr >= fx->lo && ptr + usable <= fx->hi);
    assert_true(dsm_arena_contains(fx->arena, ptr));
    if (size > SMALL_MAX || align > SMALL_MAX) {
        assert_int_equal(ptr % PAGE, 0);
        size_t wanted = size == 0 ? 1 : size;
        assert_int_equal(usable, (wanted + PAGE - 1) / PAGE * PAGE);
    }
    assert_true(iset_insert(&m->set, ptr, ptr + usable));
    model_add(m, ptr, size, usable);
}

static uintptr_t alloc_checked(struct fixture *fx, struct model *m, size_t size,
                               size_t align)
{
    uintptr_t ptr = 0;
    assert_int_equal(dsm_arena_alloc(fx->arena, size, align, &ptr), DSM_OK);
    record_block(fx, m, ptr, size, align);
    return ptr;
}

static void free_checked(struct fixture *fx, struct model *m, size_t i)
{
    assert_true(iset_remove(&m->set, m->blocks[i].ptr));
    assert_int_equal(dsm_arena_free(fx->arena, m->blocks[i].ptr), DSM_OK);
    model_drop(m, i);
}

static void assert_usage_matches(struct fixture *fx, const struct model *m)
{
    dsm_arena_usage_t u;
    dsm_arena_usage(fx->arena, &u);
    assert_int_equal(u.blocks_in_use, m->n);
    assert_int_equal(u.bytes_in_use, m->bytes_in_use);
}

static void assert_all_free(struct fixture *fx)
{
    dsm_arena_usage_t u;
    dsm_arena_usage(fx->arena, &u);
    assert_int_equal(u.bytes_in_use, 0);
    assert_int_equal(u.blocks_in_use, 0);
    assert_int_equal(u.bytes_free, fx->hi - fx->lo);
    assert_int_equal(u.largest_free, fx->hi - fx->lo);
    assert_true(dsm_arena_check(fx->arena));
}

/* xorshift64*: deterministic per seed. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static size_t rng_below(uint64_t *s, size_t n)
{
    return (size_t)(rng_next(s) % n);
}

/* Mostly small, some page-sized, a few large requests. */
static size_t random_size(uint64_t *s)
{
    unsigned pick = (unsigned)rng_below(s, 100);
    if (pick < 70)
        return rng_below(s, 4) == 0 ? rng_below(s, SMALL_MAX + 1) : rng_below(s, 257);
    if (pick < 95)
        return SMALL_MAX + 1 + rng_below(s, 64 * 1024);
    return 64 * 1024 + rng_below(s, 1024 * 1024);
}

static size_t random_align(uint64_t *s)
{
    if (rng_below(s, 5) != 0)
        return rng_below(s, 2) ? 0 : 16;
    return (size_t)1 << (3 + rng_below(s, 15));    /* 8 .. 128 KiB */
}

/* ---- tests ------------------------------------------------------------- */

static void test_create_rejects_bad_ranges(void **state)
{
    (void)state;
    dsm_arena_t *arena = NULL;
    uintptr_t base = (uintptr_t)1 << 40;
    assert_int_equal(dsm_arena_create(0, PAGE, &arena), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_create(base + 1, base + PAGE, &arena), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_create(base, base + PAGE + 8, &arena), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_create(base, base, &arena), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_create(base + PAGE, base, &arena), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_create(base, base + PAGE, NULL), DSM_ERR_INVALID);
    assert_null(arena);
    dsm_arena_destroy(NULL);
}

static void test_contains(void **state)
{
    struct fixture *fx = *state;
    assert_true(dsm_arena_contains(fx->arena, fx->lo));
    assert_true(dsm_arena_contains(fx->arena, fx->hi - 1));
    assert_false(dsm_arena_contains(fx->arena, fx->hi));
    assert_false(dsm_arena_contains(fx->arena, fx->lo - 1));
}

/* The pages of one block, up to the next block or free run. */
static void test_pages_in_block(void **state)
{
    struct fixture *fx = *state;
    uintptr_t a, b, small;
    assert_int_equal(dsm_arena_alloc(fx->arena, 10 * PAGE, PAGE, &a), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 3 * PAGE, PAGE, &b), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 64, 16, &small), DSM_OK);
    assert_true(b >= a + 10 * PAGE);
    /* from the first page, from the middle, from the last */
    assert_int_equal(dsm_arena_pages_in_block(fx->arena, a, 32),
                     (b - a) / PAGE);
    assert_int_equal(dsm_arena_pages_in_block(fx->arena, a + 4 * PAGE, 32),
                     (b - a) / PAGE - 4);
    assert_int_equal(dsm_arena_pages_in_block(fx->arena, a, 3), 3);
    assert_int_equal(dsm_arena_pages_in_block(fx->arena, a + 9 * PAGE, 1), 1);
    /* a slab page ends where its slab does */
    uintptr_t slab_page = small & ~(uintptr_t)(PAGE - 1);
    size_t n = dsm_arena_pages_in_block(fx->arena, slab_page, 32);
    assert_true(n >= 1 && n <= MAX_SLAB_PAGES);
    /* outside the arena: 1 */
    assert_int_equal(dsm_arena_pages_in_block(fx->arena, fx->hi, 32), 1);
    assert_int_equal(dsm_arena_free(fx->arena, a), DSM_OK);
    /* a freed block is a free run now: b still starts a new block */
    assert_true(dsm_arena_pages_in_block(fx->arena, a, 32) <= (b - a) / PAGE);
    assert_int_equal(dsm_arena_free(fx->arena, b), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, small), DSM_OK);
}

static void test_sizes_and_alignments(void **state)
{
    static const size_t sizes[] = {
        0, 1, 8, 15, 16, 17, 31, 33, 48, 63, 64, 65, 100, 127, 128, 129, 200,
        255, 256, 257, 500, 511, 512, 513, 700, 1000, 1023, 1024, 1025, 1500,
        1800, 2000, 2047, 2048, 2049, 3000, 4095, 4096, 4097, 8191, 8192,
        10000, 65536, 100000, 262144,
    };
    struct fixture *fx = *state;
    struct model m = {0};
    /* Each block aligned to 1 MiB needs a slot of its own: only a few, while
     * the arena is empty. */
    for (size_t align = RESERVE_ALIGN; align >= 256 * 1024; align /= 2) {
        alloc_checked(fx, &m, 0, align);
        alloc_checked(fx, &m, 100, align);
        alloc_checked(fx, &m, 5000, align);
    }
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (size_t align = 0; align <= 128 * 1024; align = align ? 2 * align : 1)
            alloc_checked(fx, &m, sizes[i], align);
    assert_true(dsm_arena_check(fx->arena));
    assert_usage_matches(fx, &m);

    uintptr_t ptr = 0;
    assert_int_equal(dsm_arena_alloc(fx->arena, 64, 24, &ptr), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_alloc(fx->arena, 64, 3, &ptr), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_alloc(fx->arena, 64, SIZE_MAX, &ptr), DSM_ERR_INVALID);
    assert_int_equal(ptr, 0);

    uint64_t seed = 42;
    while (m.n > 0)
        free_checked(fx, &m, rng_below(&seed, m.n));
    assert_all_free(fx);
    model_clear(&m);
}

static void test_large_blocks_are_whole_pages(void **state)
{
    struct fixture *fx = *state;
    struct model m = {0};
    for (size_t size = SMALL_MAX + 1; size < 12 * PAGE; size += 777) {
        uintptr_t ptr = alloc_checked(fx, &m, size, 0);
        size_t usable = 0;
        assert_int_equal(dsm_arena_usable_size(fx->arena, ptr, &usable), DSM_OK);
        assert_int_equal(usable, (size + PAGE - 1) / PAGE * PAGE);
    }
    /* A small block never lands on a page of a large one (interval set). */
    for (int i = 0; i < 100; i++)
        alloc_checked(fx, &m, 40, 0);
    assert_true(dsm_arena_check(fx->arena));
    while (m.n > 0)
        free_checked(fx, &m, m.n - 1);
    assert_all_free(fx);
    model_clear(&m);
}

static void test_reuse_after_free(void **state)
{
    struct fixture *fx = *state;
    uintptr_t a, b, c;

    /* Freed memory comes back: same block for the same request. */
    assert_int_equal(dsm_arena_alloc(fx->arena, 64, 0, &a), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 64, 0, &b), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, a), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 64, 0, &c), DSM_OK);
    assert_int_equal(c, a);
    assert_int_equal(dsm_arena_free(fx->arena, b), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, c), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 100000, 0, &a), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, a), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 100000, 0, &b), DSM_OK);
    assert_int_equal(b, a);
    assert_int_equal(dsm_arena_free(fx->arena, b), DSM_OK);

    /* 20,000 mixed requests, about 18 times the arena's 4 MiB, at most 32
     * live: the pages held never exceed what 32 blocks can pin (a slab each,
     * or their own 3 pages), a quarter of the arena. */
    enum { LIVE = 32 };
    static const size_t sizes[] = {24, 100, 700, 1000, 3000, 9000, 12000};
    struct model m = {0};
    size_t worst_held = 0;
    const size_t bound = LIVE * MAX_SLAB_PAGES * PAGE;
    for (int i = 0; i < 20000; i++) {
        if (m.n == LIVE)
            free_checked(fx, &m, (size_t)i % LIVE);
        alloc_checked(fx, &m, sizes[i % 7], 0);
        dsm_arena_usage_t u;
        dsm_arena_usage(fx->arena, &u);
        size_t held = (fx->hi - fx->lo) - u.bytes_free;
        if (held > worst_held)
            worst_held = held;
    }
    assert_true(worst_held <= bound);
    assert_true(dsm_arena_check(fx->arena));
    while (m.n > 0)
        free_checked(fx, &m, 0);
    assert_all_free(fx);
    model_clear(&m);
}

static void test_free_everything_coalesces(void **state)
{
    struct fixture *fx = *state;
    struct model m = {0};
    uint64_t seed = 7;
    for (int i = 0; i < 1500; i++) {
        size_t size = random_size(&seed) % (32 * 1024);
        alloc_checked(fx, &m, size, random_align(&seed));
    }
    assert_true(dsm_arena_check(fx->arena));
    while (m.n > 0)
        free_checked(fx, &m, rng_below(&seed, m.n));
    assert_all_free(fx);

    /* The whole arena is again one block. */
    uintptr_t ptr;
    assert_int_equal(dsm_arena_alloc(fx->arena, fx->hi - fx->lo, 0, &ptr), DSM_OK);
    assert_int_equal(ptr, fx->lo);
    assert_int_equal(dsm_arena_free(fx->arena, ptr), DSM_OK);
    assert_all_free(fx);
    model_clear(&m);
}

static void test_exhaustion_and_recovery(void **state)
{
    struct fixture *fx = *state;
    const size_t npages = (fx->hi - fx->lo) / PAGE;
    uintptr_t blocks[64];
    uintptr_t ptr = 0;
    size_t n = 0;

    while (dsm_arena_alloc(fx->arena, PAGE, 0, &ptr) == DSM_OK) {
        assert_true(n < npages);
        blocks[n++] = ptr;
    }
    assert_int_equal(n, npages);
    ptr = 0;
    assert_int_equal(dsm_arena_alloc(fx->arena, PAGE, 0, &ptr), DSM_ERR_NOMEM);
    assert_int_equal(dsm_arena_alloc(fx->arena, 16, 0, &ptr), DSM_ERR_NOMEM);
    assert_int_equal(dsm_arena_alloc(fx->arena, 0, 0, &ptr), DSM_ERR_NOMEM);
    assert_int_equal(ptr, 0);
    assert_true(dsm_arena_check(fx->arena));

    /* One page back: a page block or a slab of small blocks fits again. */
    assert_int_equal(dsm_arena_free(fx->arena, blocks[10]), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 2 * PAGE, 0, &ptr), DSM_ERR_NOMEM);
    assert_int_equal(dsm_arena_alloc(fx->arena, 3000, 0, &ptr), DSM_OK);
    assert_int_equal(ptr, blocks[10]);
    assert_int_equal(dsm_arena_free(fx->arena, ptr), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 32, 0, &ptr), DSM_OK);
    assert_int_equal(ptr, blocks[10]);
    assert_int_equal(dsm_arena_free(fx->arena, ptr), DSM_OK);

    /* Two neighbours back: they merge into one 2-page run. */
    assert_int_equal(dsm_arena_free(fx->arena, blocks[11]), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 2 * PAGE, 0, &ptr), DSM_OK);
    assert_int_equal(ptr, blocks[10]);
    blocks[10] = ptr;
    blocks[11] = 0;
    assert_true(dsm_arena_check(fx->arena));

    for (size_t i = 0; i < n; i++)
        if (blocks[i] != 0)
            assert_int_equal(dsm_arena_free(fx->arena, blocks[i]), DSM_OK);
    assert_all_free(fx);

    /* Requests beyond the arena fail cleanly. */
    assert_int_equal(dsm_arena_alloc(fx->arena, fx->hi - fx->lo + 1, 0, &ptr), DSM_ERR_NOMEM);
    assert_int_equal(dsm_arena_alloc(fx->arena, SIZE_MAX, 0, &ptr), DSM_ERR_NOMEM);
    assert_int_equal(dsm_arena_alloc(fx->arena, SIZE_MAX - PAGE, 1, &ptr), DSM_ERR_NOMEM);
    assert_int_equal(dsm_arena_alloc(fx->arena, PAGE, (size_t)1 << 62, &ptr), DSM_ERR_NOMEM);
    /* lo is 1 MiB-aligned: 2 MiB alignment fits only if lo happens to be. */
    if (fx->lo % (2 * RESERVE_ALIGN) != 0)
        assert_int_equal(dsm_arena_alloc(fx->arena, 16, 2 * RESERVE_ALIGN, &ptr),
                         DSM_ERR_NOMEM);

    /* Small blocks alone can fill the arena too. */
    size_t small = 0;
    while (dsm_arena_alloc(fx->arena, SMALL_MAX, 0, &ptr) == DSM_OK)
        small++;
    assert_int_equal(small, npages * PAGE / SMALL_MAX);
    assert_int_equal(dsm_arena_alloc(fx->arena, 16, 0, &ptr), DSM_ERR_NOMEM);
    assert_true(dsm_arena_check(fx->arena));
    for (uintptr_t p = fx->lo; p < fx->hi; p += SMALL_MAX)
        assert_int_equal(dsm_arena_free(fx->arena, p), DSM_OK);
    assert_all_free(fx);
    assert_int_equal(dsm_arena_alloc(fx->arena, fx->hi - fx->lo, 0, &ptr), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, ptr), DSM_OK);
}

static void test_invalid_and_double_free(void **state)
{
    struct fixture *fx = *state;
    uintptr_t small, large, spare;
    size_t usable;
    assert_int_equal(dsm_arena_alloc(fx->arena, 48, 0, &small), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 48, 0, &spare), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 3 * PAGE, 0, &large), DSM_OK);
    dsm_arena_usage_t before, after;
    dsm_arena_usage(fx->arena, &before);

    const uintptr_t bad[] = {
        0, fx->lo - 16, fx->hi, fx->hi + PAGE,
        small + 8, small + 16, small + 47, spare + 48, /* never handed out */
        large + 16, large + PAGE, large + 2 * PAGE,     /* inside the block */
        large + 3 * PAGE, large + 100 * PAGE,          /* free pages */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(dsm_arena_free(fx->arena, bad[i]), DSM_ERR_INVALID);
        assert_int_equal(dsm_arena_usable_size(fx->arena, bad[i], &usable), DSM_ERR_INVALID);
        assert_int_equal(dsm_arena_resize_in_place(fx->arena, bad[i], 8), DSM_ERR_INVALID);
    }
    dsm_arena_usage(fx->arena, &after);
    assert_memory_equal(&before, &after, sizeof(before));
    assert_true(dsm_arena_check(fx->arena));

    /* Double frees, while the slab still has a live block and after the
     * pages went back to the free runs. */
    assert_int_equal(dsm_arena_free(fx->arena, small), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, small), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_free(fx->arena, spare), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, spare), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_free(fx->arena, small), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_free(fx->arena, large), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, large), DSM_ERR_INVALID);
    assert_int_equal(dsm_arena_usable_size(fx->arena, large, &usable), DSM_ERR_INVALID);
    assert_all_free(fx);
}

static void test_resize_in_place(void **state)
{
    struct fixture *fx = *state;
    uintptr_t big, fence, small;
    size_t usable;

    /* Large: grow into the free pages after it, shrink, hit a neighbour. */
    assert_int_equal(dsm_arena_alloc(fx->arena, 2 * PAGE, 0, &big), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, PAGE, 0, &fence), DSM_OK);
    assert_int_equal(dsm_arena_resize_in_place(fx->arena, big, 2 * PAGE + 1), DSM_ERR_NOMEM);
    assert_int_equal(dsm_arena_free(fx->arena, fence), DSM_OK);
    assert_int_equal(dsm_arena_resize_in_place(fx->arena, big, 10 * PAGE), DSM_OK);
    assert_int_equal(dsm_arena_usable_size(fx->arena, big, &usable), DSM_OK);
    assert_int_equal(usable, 10 * PAGE);
    assert_int_equal(dsm_arena_alloc(fx->arena, PAGE, 0, &fence), DSM_OK);
    assert_int_equal(fence, big + 10 * PAGE);
    assert_true(dsm_arena_check(fx->arena));

    assert_int_equal(dsm_arena_resize_in_place(fx->arena, big, 3 * PAGE - 5), DSM_OK);
    assert_int_equal(dsm_arena_usable_size(fx->arena, big, &usable), DSM_OK);
    assert_int_equal(usable, 3 * PAGE);
    dsm_arena_usage_t u;
    dsm_arena_usage(fx->arena, &u);
    assert_int_equal(u.bytes_in_use, 4 * PAGE);
    /* The 7 pages given back are free again, between big and fence. */
    uintptr_t hole;
    assert_int_equal(dsm_arena_alloc(fx->arena, 7 * PAGE, 0, &hole), DSM_OK);
    assert_int_equal(hole, big + 3 * PAGE);
    assert_int_equal(dsm_arena_free(fx->arena, hole), DSM_OK);
    assert_int_equal(dsm_arena_resize_in_place(fx->arena, big, 10 * PAGE), DSM_OK);
    assert_int_equal(dsm_arena_resize_in_place(fx->arena, big, 10 * PAGE + 1), DSM_ERR_NOMEM);
    assert_int_equal(dsm_arena_resize_in_place(fx->arena, big, 0), DSM_OK);
    assert_int_equal(dsm_arena_usable_size(fx->arena, big, &usable), DSM_OK);
    assert_int_equal(usable, PAGE);
    assert_int_equal(dsm_arena_resize_in_place(fx->arena, big, SIZE_MAX), DSM_ERR_NOMEM);
    assert_true(dsm_arena_check(fx->arena));

    /* Small: stays in its class, cannot grow past it. */
    assert_int_equal(dsm_arena_alloc(fx->arena, 40, 0, &small), DSM_OK);
    assert_int_equal(dsm_arena_usable_size(fx->arena, small, &usable), DSM_OK);
    assert_int_equal(dsm_arena_resize_in_place(fx->arena, small, usable), DSM_OK);
    assert_int_equal(dsm_arena_resize_in_place(fx->arena, small, 1), DSM_OK);
    assert_int_equal(dsm_arena_resize_in_place(fx->arena, small, usable + 1), DSM_ERR_NOMEM);
    assert_int_equal(dsm_arena_resize_in_place(fx->arena, small, 5 * PAGE), DSM_ERR_NOMEM);
    assert_true(dsm_arena_check(fx->arena));

    assert_int_equal(dsm_arena_free(fx->arena, small), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, big), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, fence), DSM_OK);
    assert_all_free(fx);
}

/* One operation of the randomised model test. */
static void model_step(struct fixture *fx, struct model *m, uint64_t *seed)
{
    unsigned op = (unsigned)rng_below(seed, 100);
    if (op < 45 || m->n == 0) {
        size_t size = random_size(seed);
        size_t align = random_align(seed);
        uintptr_t ptr;
        dsm_status_t st = dsm_arena_alloc(fx->arena, size, align, &ptr);
        if (st == DSM_OK) {
            record_block(fx, m, ptr, size, align);
            return;
        }
        /* Refused only when no free run could hold it. */
        assert_int_equal(st, DSM_ERR_NOMEM);
        dsm_arena_usage_t u;
        dsm_arena_usage(fx->arena, &u);
        if (size > SMALL_MAX && align <= PAGE)
            assert_true(u.largest_free < size);
        else if (size <= SMALL_MAX && align <= SMALL_MAX)
            assert_true(u.largest_free < MAX_SLAB_PAGES * PAGE);
        return;
    }
    size_t i = rng_below(seed, m->n);
    struct live *b = &m->blocks[i];
    if (op < 85) {
        if (rng_below(seed, 10) == 0 && b->usable > SMALL_MAX)
            assert_int_equal(dsm_arena_free(fx->arena, b->ptr + 16), DSM_ERR_INVALID);
        uintptr_t gone = b->ptr;
        free_checked(fx, m, i);
        if (rng_below(seed, 10) == 0) {
            size_t usable;
            dsm_status_t st = dsm_arena_usable_size(fx->arena, gone, &usable);
            assert_int_equal(st, DSM_ERR_INVALID);
            assert_int_equal(dsm_arena_free(fx->arena, gone), DSM_ERR_INVALID);
        }
        return;
    }
    size_t new_size = rng_below(seed, 2) ? b->size / 2 : b->size + rng_below(seed, 3 * PAGE);
    size_t usable;
    dsm_status_t st = dsm_arena_resize_in_place(fx->arena, b->ptr, new_size);
    assert_int_equal(dsm_arena_usable_size(fx->arena, b->ptr, &usable), DSM_OK);
    if (st == DSM_OK) {
        assert_true(usable >= new_size);
        assert_true(iset_remove(&m->set, b->ptr));
        assert_true(iset_insert(&m->set, b->ptr, b->ptr + usable));
        m->bytes_in_use = m->bytes_in_use - b->usable + usable;
        b->size = new_size;
        b->usable = usable;
    } else {
        /* Shrinking never fails; growing fails without changing anything. */
        assert_int_equal(st, DSM_ERR_NOMEM);
        assert_true(new_size > b->usable);
        assert_int_equal(usable, b->usable);
    }
}

static void test_random_model(void **state)
{
    struct fixture *fx = *state;
    static const uint64_t seeds[] = {1, 2, 3, 0x9e3779b97f4a7c15ull, 12345};
    for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
        uint64_t seed = seeds[s];
        struct model m = {0};
        for (int step = 1; step <= 20000; step++) {
            model_step(fx, &m, &seed);
            if (step % 1000 == 0) {
                assert_true(dsm_arena_check(fx->arena));
                assert_usage_matches(fx, &m);
            }
        }
        assert_usage_matches(fx, &m);
        while (m.n > 0)
            free_checked(fx, &m, rng_below(&seed, m.n));
        assert_all_free(fx);
        model_clear(&m);
    }
}

/* ---- concurrency ------------------------------------------------------- */

enum { THREADS = 4, THREAD_OPS = 20000, THREAD_LIVE = 64 };

struct shared {
    struct fixture *fx;
    pthread_mutex_t lock;       /* guards set */
    struct interval_set set;
    int failures;               /* cmocka asserts only on the main thread */
};

struct worker {
    struct shared *sh;
    uint64_t seed;
};

static void note_failure(struct shared *sh)
{
    pthread_mutex_lock(&sh->lock);
    sh->failures++;
    pthread_mutex_unlock(&sh->lock);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;
    uintptr_t live[THREAD_LIVE];
    size_t n = 0;
    for (int op = 0; op < THREAD_OPS; op++) {
        if (n == THREAD_LIVE || (n > 0 && rng_below(&w->seed, 2) == 0)) {
            size_t i = rng_below(&w->seed, n);
            pthread_mutex_lock(&sh->lock);
            int known = iset_remove(&sh->set, live[i]);
            pthread_mutex_unlock(&sh->lock);
            /* Taken out of the set before the arena may hand it out again. */
            if (!known || dsm_arena_free(sh->fx->arena, live[i]) != DSM_OK)
                note_failure(sh);
            live[i] = live[--n];
            continue;
        }
        size_t size = rng_below(&w->seed, 8) == 0 ? SMALL_MAX + rng_below(&w->seed, 5 * PAGE)
                                                  : rng_below(&w->seed, 600);
        uintptr_t ptr;
        size_t usable;
        if (dsm_arena_alloc(sh->fx->arena, size, 0, &ptr) != DSM_OK ||
            dsm_arena_usable_size(sh->fx->arena, ptr, &usable) != DSM_OK || usable < size) {
            note_failure(sh);
            continue;
        }
        pthread_mutex_lock(&sh->lock);
        int fresh = iset_insert(&sh->set, ptr, ptr + usable);
        pthread_mutex_unlock(&sh->lock);
        if (!fresh) {
            note_failure(sh);
            continue;
        }
        live[n++] = ptr;
    }
    while (n > 0) {
        pthread_mutex_lock(&sh->lock);
        int known = iset_remove(&sh->set, live[--n]);
        pthread_mutex_unlock(&sh->lock);
        if (!known || dsm_arena_free(sh->fx->arena, live[n]) != DSM_OK)
            note_failure(sh);
    }
    return NULL;
}

static void test_concurrent_threads(void **state)
{
    struct shared sh = {.fx = *state};
    pthread_mutex_init(&sh.lock, NULL);
    pthread_t tid[THREADS];
    struct worker w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = (struct worker){&sh, 0x1234567ull * (uint64_t)(t + 1)};
        assert_int_equal(pthread_create(&tid[t], NULL, worker_main, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_join(tid[t], NULL), 0);
    assert_int_equal(sh.failures, 0);
    assert_int_equal(sh.set.n, 0);
    assert_all_free(sh.fx);
    iset_clear(&sh.set);
    pthread_mutex_destroy(&sh.lock);
}

/* ---- metadata stays out of band and lazy ------------------------------- */

static size_t resident_bytes(void)
{
    long pages_total = 0, pages_resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%ld %ld", &pages_total, &pages_resident), 2);
    fclose(f);
    return (size_t)pages_resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* An 8 GiB arena (2 Mi pages): creating it and using a few blocks must touch
 * only a little metadata.  Eager metadata would be about 120 MiB. */
static void test_large_arena_metadata_is_lazy(void **state)
{
    (void)state;
    size_t before = resident_bytes();
    struct fixture *fx = fixture_new((size_t)8 << 30);
    uintptr_t huge, small, mid;
    assert_int_equal(dsm_arena_alloc(fx->arena, (size_t)6 << 30, 0, &huge), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, 100, 0, &small), DSM_OK);
    assert_int_equal(dsm_arena_alloc(fx->arena, (size_t)1 << 30, (size_t)1 << 30, &mid), DSM_OK);
    assert_int_equal(mid % ((size_t)1 << 30), 0);
    assert_int_equal(dsm_arena_free(fx->arena, huge), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, small), DSM_OK);
    assert_int_equal(dsm_arena_free(fx->arena, mid), DSM_OK);
    size_t after = resident_bytes();
    assert_true(after < before + ((size_t)16 << 20));
    assert_all_free(fx);
    fixture_free(fx);
}

/* ---- cost, printed only ------------------------------------------------ */

static double mean_pair_ns(dsm_arena_t *arena, size_t size, int iterations)
{
    uintptr_t ptr;
    uint64_t t0 = dsm_now_ns();
    for (int i = 0; i < iterations; i++) {
        if (dsm_arena_alloc(arena, size, 0, &ptr) != DSM_OK ||
            dsm_arena_free(arena, ptr) != DSM_OK)
            fail_msg("alloc/free of %zu bytes failed", size);
    }
    return (double)(dsm_now_ns() - t0) / iterations;
}

static void test_print_costs(void **state)
{
    struct fixture *fx = *state;
    enum { ITER = 200000 };
    double lone64 = mean_pair_ns(fx->arena, 64, ITER);
    double page = mean_pair_ns(fx->arena, 4096, ITER);
    /* With a neighbour alive the slab stays, as in a program's steady state. */
    uintptr_t keep;
    assert_int_equal(dsm_arena_alloc(fx->arena, 64, 0, &keep), DSM_OK);
    double steady64 = mean_pair_ns(fx->arena, 64, ITER);
    assert_int_equal(dsm_arena_free(fx->arena, keep), DSM_OK);
    print_message("arena alloc+free mean: 64 B %.0f ns (slab kept), "
                  "64 B %.0f ns (slab made and returned each time), "
                  "4 KiB %.0f ns\n", steady64, lone64, page);
    assert_all_free(fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_rejects_bad_ranges),
        cmocka_unit_test_setup_teardown(test_contains, setup_1m, teardown),
        cmocka_unit_test_setup_teardown(test_pages_in_block, setup_4m, teardown),
        cmocka_unit_test_setup_teardown(test_sizes_and_alignments, setup_16m, teardown),
        cmocka_unit_test_setup_teardown(test_large_blocks_are_whole_pages, setup_4m, teardown),
        cmocka_unit_test_setup_teardown(test_reuse_after_free, setup_4m, teardown),
        cmocka_unit_test_setup_teardown(test_free_everything_coalesces, setup_16m, teardown),
        cmocka_unit_test_setup_teardown(test_exhaustion_and_recovery, setup_64_pages, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_and_double_free, setup_1m, teardown),
        cmocka_unit_test_setup_teardown(test_resize_in_place, setup_1m, teardown),
        cmocka_unit_test_setup_teardown(test_random_model, setup_16m, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_threads, setup_16m, teardown),
        cmocka_unit_test(test_large_arena_metadata_is_lazy),
        cmocka_unit_test_setup_teardown(test_print_costs, setup_16m, teardown),
    };
    return cmocka_run_group_tests_name("arena", tests, NULL, NULL);
}
