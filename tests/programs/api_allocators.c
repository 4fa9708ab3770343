/*
 * api_allocators.c - OpenMP memory allocators used the way a program
 * uses them: an allocator with traits (64-byte alignment, default-memory
 * fallback) from omp_init_allocator, arrays from omp_alloc,
 * omp_aligned_alloc, omp_calloc and omp_realloc shared by a parallel
 * loop, omp_set_default_allocator / omp_get_default_allocator, and the
 * allocate clause on private and firstprivate variables (with predefined
 * allocators: clang 14's libomp crashes in __kmpc_alloc when the clause
 * names a handle from omp_init_allocator).
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

int main(void)
{
    int errors = 0;
    omp_alloctrait_t traits[2] = {{omp_atk_alignment, 64},
                                  {omp_atk_fallback, omp_atv_default_mem_fb}};
    omp_allocator_handle_t aligned64 =
        omp_init_allocator(omp_default_mem_space, 2, traits);
    if (aligned64 == omp_null_allocator)
        errors++;

    double *a = omp_alloc(N * sizeof *a, aligned64);
    double *b = omp_aligned_alloc(128, N * sizeof *b, omp_default_mem_alloc);
    long *c = omp_calloc(N, sizeof *c, omp_default_mem_alloc);
    if (!a || !b || !c || (uintptr_t)a % 64 || (uintptr_t)b % 128)
        errors++;

#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        a[i] = i * 0.5;
        b[i] = a[i] + 1;
        c[i] += i;
    }
    c = omp_realloc(c, 2 * N * sizeof *c, omp_default_mem_alloc,
                    omp_default_mem_alloc);
#pragma omp parallel for
    for (int i = N; i < 2 * N; i++)
        c[i] = i;

    omp_allocator_handle_t before = omp_get_default_allocator();
    omp_set_default_allocator(aligned64);
    if (omp_get_default_allocator() != aligned64)
        errors++;
    double *d = omp_alloc(N * sizeof *d, omp_null_allocator);
    if (!d || (uintptr_t)d % 64)
        errors++;
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        d[i] = 2.0 * i;
    omp_set_default_allocator(before);

    double scratch = 0;
    long tally = 7;
    double total = 0;
#pragma omp parallel private(scratch) firstprivate(tally) \
    allocate(omp_default_mem_alloc : scratch) allocate(omp_low_lat_mem_alloc : tally) \
    reduction(+ : total)
    {
        scratch = omp_get_thread_num();
        tally += (long)scratch;
        total += tally - scratch;      /* 7 per thread */
    }
    int nthreads = omp_get_max_threads();
    if (total != 7.0 * nthreads)
        errors++;

    double sum = 0;
    long csum = 0;
    for (int i = 0; i < N; i++) {
        if (a[i] != i * 0.5 || b[i] != i * 0.5 + 1 || d[i] != 2.0 * i)
            errors++;
        sum += a[i] + b[i] + d[i];
    }
    for (int i = 0; i < 2 * N; i++) {
        if (c[i] != i)
            errors++;
        csum += c[i];
    }
    omp_free(a, aligned64);
    omp_free(b, omp_default_mem_alloc);
    omp_free(c, omp_default_mem_alloc);
    omp_free(d, aligned64);
    omp_destroy_allocator(aligned64);
    printf("result: sum %.1f csum %ld total %.0f\n", sum, csum, total);
    if (errors)
        fprintf(stderr, "api_allocators: %d errors\n", errors);
    return errors ? 1 : 0;
}
