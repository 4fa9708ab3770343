/*
 * omp_api_alloc.c - OpenMP memory allocators across nodes: every
 * predefined allocator, omp_alloc / omp_aligned_alloc / omp_calloc /
 * omp_aligned_calloc / omp_realloc / omp_free, allocators made by
 * omp_init_allocator with the alignment, pool_size and fallback traits,
 * used in serial code and by every thread of a region (the blocks and the
 * allocator handles are valid on every node), the default allocator, and
 * the allocate clause and directive (__kmpc_alloc / __kmpc_free), and an
 * allocation made before start-up (a constructor).
 *
 * The "result:" lines are compared with libomp's; argument "abort_fb"
 * instead exhausts an allocator whose fallback is abort_fb, which must end
 * the job (expect-fatal.sh).
 *
 * Test program (dsmcc, dsmrun; and plain clang -fopenmp).  Exit status 0
 * when everything matched.
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "omp_check.h"

#ifndef OMP_CHECK_LIBOMP
#include "kmp_cluster.h"
#endif

#define MAX_THREADS 64
#define N 1000

static long *block_of[MAX_THREADS];
static long sums[MAX_THREADS];
static int got[MAX_THREADS];

static const omp_allocator_handle_t predefined[] = {
    omp_default_mem_alloc, omp_large_cap_mem_alloc, omp_const_mem_alloc,
    omp_high_bw_mem_alloc, omp_low_lat_mem_alloc, omp_cgroup_mem_alloc,
    omp_pteam_mem_alloc, omp_thread_mem_alloc,
};

static int aligned(const void *p, size_t a) { return ((uintptr_t)p % a) == 0; }

/* Serial code: a block from each predefined allocator, filled by a
 * region's threads on every node, summed back. */
static void predefined_allocators(void)
{
    for (size_t k = 0; k < sizeof predefined / sizeof *predefined; k++) {
#ifdef OMP_CHECK_LIBOMP
        if (predefined[k] == omp_large_cap_mem_alloc ||
            predefined[k] == omp_high_bw_mem_alloc)
            continue;
#endif
        long *a = omp_alloc(N * sizeof(long), predefined[k]);
        CHECK(a != NULL);
        if (!a)
            continue;
#ifndef OMP_CHECK_LIBOMP
        CHECK(kmp_is_sharable(a));
#endif
#pragma omp parallel for
        for (int i = 0; i < N; i++)
            a[i] = i + (long)k;
        long sum = 0;
        for (int i = 0; i < N; i++)
            sum += a[i];
        CHECK_EQ_LONG(sum, N * (N - 1) / 2 + N * (long)k);
#ifndef OMP_CHECK_LIBOMP
        CHECK(aligned(a, 16));
#endif
        /* libomp 14 has these only with the memkind library */
        if (predefined[k] != omp_large_cap_mem_alloc &&
            predefined[k] != omp_high_bw_mem_alloc)
            RESULT("allocator %d: sum %ld, 8-byte aligned %d", (int)k + 1,
                   sum, aligned(a, 8));
        omp_free(a, predefined[k]);
    }
    RESULT("omp_alloc(0): %s", omp_alloc(0, omp_default_mem_alloc)
                                   ? "a block" : "NULL");
    omp_free(NULL, omp_default_mem_alloc);
}

static void allocation_routines(void)
{
    double *a = omp_aligned_alloc(4096, 100 * sizeof(double),
                                  omp_default_mem_alloc);
    long *z = omp_calloc(N, sizeof(long), omp_cgroup_mem_alloc);
    long *za = omp_aligned_calloc(256, N, sizeof(long), omp_null_allocator);
    long zeros = 0;
    for (int i = 0; i < N; i++)
        zeros += z[i] == 0 && za[i] == 0;
    RESULT("aligned_alloc 4096: %d; calloc zeros %ld; aligned_calloc 256: "
           "%d", aligned(a, 4096), zeros, aligned(za, 256));
    /* realloc keeps the contents, grows and shrinks */
    for (int i = 0; i < N; i++)
        z[i] = i;
    z = omp_realloc(z, 4 * N * sizeof(long), omp_null_allocator,
                    omp_null_allocator);
    long kept = 0;
    for (int i = 0; i < N; i++)
        kept += z[i] == i;
    z[4 * N - 1] = 7;
    z = omp_realloc(z, 10 * sizeof(long), omp_low_lat_mem_alloc,
                    omp_null_allocator);
    long kept_small = 0;
    for (int i = 0; i < 10; i++)
        kept_small += z[i] == i;
    long *fresh = omp_realloc(NULL, 16, omp_default_mem_alloc,
                              omp_null_allocator);
    void *gone = omp_realloc(fresh, 0, omp_default_mem_alloc,
                             omp_null_allocator);
    RESULT("realloc: kept %ld then %ld; from NULL %s; to 0 %s", kept,
           kept_small, fresh ? "a block" : "NULL", gone ? "a block" : "NULL");
    omp_free(z, omp_null_allocator);
    omp_free(za, omp_null_allocator);
    omp_free(a, omp_default_mem_alloc);
    /* the default allocator */
    RESULT("default allocator %d", (int)omp_get_default_allocator());
    omp_set_default_allocator(omp_low_lat_mem_alloc);
    long *d = omp_alloc(64, omp_null_allocator);
    RESULT("default allocator set: %d, allocation %s",
           (int)omp_get_default_allocator(), d ? "made" : "failed");
    omp_free(d, omp_null_allocator);
    omp_set_default_allocator(omp_default_mem_alloc);
}

/* Allocators made by omp_init_allocator, used on every node. */
static void made_allocators(void)
{
    int nth = omp_get_max_threads();
    omp_alloctrait_t aligned_traits[] = {{omp_atk_alignment, 512},
                                         {omp_atk_access, omp_atv_all},
                                         {omp_atk_sync_hint,
                                          omp_atv_contended},
                                         {omp_atk_pinned, omp_atv_false},
                                         {omp_atk_partition,
                                          omp_atv_environment}};
    omp_allocator_handle_t al =
        omp_init_allocator(omp_default_mem_space, 5, aligned_traits);
    CHECK(al != omp_null_allocator);
    /* each thread allocates from the same handle, on its own node */
#pragma omp parallel
    {
        int me = omp_get_thread_num();
        long *b = omp_alloc(N * sizeof(long), al);
        if (me < MAX_THREADS) {
            got[me] = b != NULL && aligned(b, 512);
            block_of[me] = b;
        }
        if (b)
            for (int i = 0; i < N; i++)
                b[i] = me * 1000 + i;
    }
    /* ... and the blocks are read elsewhere, then freed by thread 0 */
    long all = 0;
    int ok = 0;
    for (int t = 0; t < nth && t < MAX_THREADS; t++) {
        ok += got[t];
        for (int i = 0; i < N && block_of[t]; i++)
            all += block_of[t][i];
        omp_free(block_of[t], al);
    }
    RESULT("aligned allocator: %d of %d threads got 512-aligned blocks, sum "
           "%ld", ok, nth, all);
    omp_destroy_allocator(al);

    /* pool_size: bytes live at once, counted over every node */
    omp_alloctrait_t pool_traits[] = {
        {omp_atk_pool_size, (omp_uintptr_t)nth * 2048},
        {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t pool =
        omp_init_allocator(omp_default_mem_space, 2, pool_traits);
    int granted = 0;
#pragma omp parallel reduction(+ : granted)
    {
        void *b = omp_alloc(1024, pool);
        granted += b != NULL;
        int me = omp_get_thread_num();
        if (me < MAX_THREADS)
            block_of[me] = b;
    }
    void *too_much = omp_alloc((size_t)nth * 2048, pool);
    for (int t = 0; t < nth && t < MAX_THREADS; t++)
        omp_free(block_of[t], pool);
    void *after = omp_alloc((size_t)nth * 1024, pool);
    RESULT("pool of %d bytes: %d of %d granted 1024, then %d more: %s; "
           "after the frees %d: %s", nth * 2048, granted, nth, nth * 2048,
           too_much ? "granted" : "NULL", nth * 1024,
           after ? "granted" : "NULL");
    omp_free(after, pool);

    /* fallbacks: default_mem_fb takes from the default allocator,
     * allocator_fb from the one given */
    omp_alloctrait_t small_default[] = {{omp_atk_pool_size, 4096}};
    omp_allocator_handle_t small =
        omp_init_allocator(omp_default_mem_space, 1, small_default);
    void *over = omp_alloc(8192, small);
    omp_alloctrait_t small_chained[] = {
        {omp_atk_pool_size, 4096},
        {omp_atk_fallback, omp_atv_allocator_fb},
        {omp_atk_fb_data, (omp_uintptr_t)pool}};
    omp_allocator_handle_t chained =
        omp_init_allocator(omp_default_mem_space, 3, small_chained);
    void *via_pool = omp_alloc(5000, chained);
    void *beyond = omp_alloc((size_t)nth * 4096 + 4096, chained);
    RESULT("fallbacks: default_mem_fb %s, allocator_fb %s, beyond both %s",
           over ? "granted" : "NULL", via_pool ? "granted" : "NULL",
           beyond ? "granted" : "NULL");
    omp_free(over, small);
    omp_free(via_pool, chained);
    omp_destroy_allocator(chained);
    omp_destroy_allocator(small);
    omp_destroy_allocator(pool);
#ifndef OMP_CHECK_LIBOMP
    /* traits that are not valid make no allocator (libomp asserts) */
    omp_alloctrait_t bad_align[] = {{omp_atk_alignment, 24}};
    CHECK(omp_init_allocator(omp_default_mem_space, 1, bad_align) ==
          omp_null_allocator);
    omp_alloctrait_t bad_key[] = {{(omp_alloctrait_key_t)99, 1}};
    CHECK(omp_init_allocator(omp_default_mem_space, 1, bad_key) ==
          omp_null_allocator);
    CHECK(omp_init_allocator((omp_memspace_handle_t)77, 0, NULL) ==
          omp_null_allocator);
    omp_alloctrait_t fb_alone[] = {{omp_atk_fallback, omp_atv_allocator_fb}};
    CHECK(omp_init_allocator(omp_default_mem_space, 1, fb_alone) ==
          omp_null_allocator);
    CHECK(omp_calloc(SIZE_MAX / 2, 16, omp_default_mem_alloc) == NULL);
    /* every memory space is the sharable heap */
    static const omp_memspace_handle_t spaces[] = {
        omp_default_mem_space, omp_large_cap_mem_space, omp_const_mem_space,
        omp_high_bw_mem_space, omp_low_lat_mem_space};
    for (size_t m = 0; m < sizeof spaces / sizeof *spaces; m++) {
        omp_allocator_handle_t sa = omp_init_allocator(spaces[m], 0, NULL);
        CHECK(sa != omp_null_allocator);
        void *b = omp_alloc(100, sa);
        CHECK(b != NULL && kmp_is_sharable(b));
        omp_free(b, omp_null_allocator);   /* the block knows its own */
        omp_destroy_allocator(sa);
    }
#endif
}

/* The allocate directive: the variables of a function from an allocator
 * (clang calls __kmpc_alloc and __kmpc_free). */
static long directive(int seed)
{
    long v[64];
#pragma omp allocate(v) allocator(omp_pteam_mem_alloc)
    for (int i = 0; i < 64; i++)
        v[i] = seed + i;
    long s = 0;
    for (int i = 0; i < 64; i++)
        s += v[i];
    return s;
}

/* The allocate clause on a region's private variables. */
static void clause(void)
{
    int nth = omp_get_max_threads();
    long scratch[128];
#pragma omp parallel private(scratch) allocate(omp_low_lat_mem_alloc : scratch)
    {
        int me = omp_get_thread_num();
        for (int i = 0; i < 128; i++)
            scratch[i] = me + i;
        long s = 0;
        for (int i = 0; i < 128; i++)
            s += scratch[i];
        if (me < MAX_THREADS)
            sums[me] = s + directive(me);
    }
    long total = 0;
    for (int t = 0; t < nth && t < MAX_THREADS; t++)
        total += sums[t];
    RESULT("allocate clause and directive: %ld", total);
}

/* Before start-up (a constructor): libc's heap serves, and the block is
 * freed after it. */
static void *early;

__attribute__((constructor)) static void allocate_early(void)
{
    early = omp_alloc(100, omp_null_allocator);
    if (early)
        memset(early, 1, 100);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "abort_fb") == 0) {
        omp_alloctrait_t t[] = {{omp_atk_pool_size, 1024},
                                {omp_atk_fallback, omp_atv_abort_fb}};
        omp_allocator_handle_t a =
            omp_init_allocator(omp_default_mem_space, 2, t);
        omp_alloc(4096, a);
        fprintf(stderr, "omp_api_alloc: abort_fb returned\n");
        return 0;
    }
    RESULT("allocation in a constructor: %s",
           early && ((char *)early)[99] == 1 ? "made" : "failed");
    omp_free(early, omp_null_allocator);
    predefined_allocators();
    allocation_routines();
    made_allocators();
    clause();
    return check_status("omp_api_alloc");
}
