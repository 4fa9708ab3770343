/* gnu_loops.c - what gcc compiles into its own runtime calls, checked
 * against serial answers: combined parallel loops (constant bounds: gcc
 * opens the loop in GOMP_parallel_loop_*), loops over unsigned long long
 * above 2^63 in both directions (GOMP_loop_ull_*), an ordered ull loop,
 * copyin of a threadprivate array (passed by address), long double and
 * __int128 atomics (between GOMP_atomic_start and _end), the __sync and
 * __atomic builtins used directly, taskloops with grainsize and num_tasks,
 * and a task whose firstprivate variable-length array gcc copies with a
 * copy function.  Programs corpus (issue 21); the results depend only on
 * the team size. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 3000
#define BIG 0x8000000100000000ULL   /* above 2^63: gcc keeps it unsigned */

static int hits[N];
static int tp_table[64];
#pragma omp threadprivate(tp_table)
static long sync_count, builtin_count;

static int check_hits(const char *what, int want)
{
    int bad = 0;
    for (int i = 0; i < N; i++) {
        if (hits[i] != want)
            bad++;
        hits[i] = 0;
    }
    printf("result: %s wrong %d\n", what, bad);
    return bad != 0;
}

static long vla_task(int n)
{
    long vla[n], out = 0;
    for (int i = 0; i < n; i++)
        vla[i] = i + 1;
#pragma omp parallel shared(out)
#pragma omp single
    {
#pragma omp task firstprivate(vla) shared(out)
        {
            long s = 0;
            for (int i = 0; i < n; i++)
                s += vla[i];
            out = s;
        }
#pragma omp taskwait
    }
    return out;
}

int main(void)
{
    int errors = 0;

#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < N; i++)
        hits[i]++;
    errors += check_hits("combined dynamic", 1);
#pragma omp parallel for schedule(guided)
    for (int i = 0; i < N; i++)
        hits[i]++;
    errors += check_hits("combined guided", 1);
#pragma omp parallel for schedule(runtime)
    for (int i = 0; i < N; i++)
        hits[i]++;
    errors += check_hits("combined runtime", 1);
#pragma omp parallel for schedule(static, 3)
    for (int i = 0; i < N; i++)
        hits[i]++;
    errors += check_hits("combined static,3", 1);

    /* unsigned long long above 2^63, up and down */
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 7)
        for (unsigned long long k = BIG; k < BIG + N; k++)
            hits[k - BIG]++;
#pragma omp for schedule(guided, 3)
        for (unsigned long long k = BIG + N - 1; k >= BIG; k -= 2)
            hits[k - BIG]++;
#pragma omp for schedule(runtime)
        for (unsigned long long k = BIG + N - 2; k >= BIG; k -= 2)
            hits[k - BIG]++;
    }
    errors += check_hits("unsigned long long", 2);

    /* ordered over unsigned long long */
    unsigned long long seq[100];
    int pos = 0;
#pragma omp parallel for ordered schedule(dynamic, 3)
    for (unsigned long long k = BIG; k < BIG + 100; k++) {
#pragma omp ordered
        seq[pos++] = k - BIG;
    }
    int ordered_bad = 0;
    for (int i = 0; i < 100; i++)
        ordered_bad += seq[i] != (unsigned long long)i;
    printf("result: ordered ull wrong %d\n", ordered_bad);
    errors += ordered_bad != 0;

    /* copyin of a threadprivate array */
    for (int i = 0; i < 64; i++)
        tp_table[i] = i * 3 + 1;
    int copyin_bad = 0;
#pragma omp parallel copyin(tp_table) reduction(+ : copyin_bad)
    {
        for (int i = 0; i < 64; i++)
            copyin_bad += tp_table[i] != i * 3 + 1;
        tp_table[0] = -omp_get_thread_num();
    }
    printf("result: copyin wrong %d\n", copyin_bad);
    errors += copyin_bad != 0;

    /* atomics gcc cannot make one instruction, and builtins */
    long double ld = 0;
    __int128 wide = 0;
    int nthreads = 0;
#pragma omp parallel shared(ld, wide, nthreads)
    {
#pragma omp single
        nthreads = omp_get_num_threads();
        for (int i = 0; i < 50; i++) {
#pragma omp atomic
            ld += 0.5L;
#pragma omp atomic
            wide += (__int128)1 << 40;
            __sync_fetch_and_add(&sync_count, 2);
            __atomic_add_fetch(&builtin_count, 3, __ATOMIC_SEQ_CST);
        }
    }
    int atomic_bad = ld != 25.0L * nthreads ||
                     wide != ((__int128)50 << 40) * nthreads ||
                     sync_count != 100L * nthreads ||
                     builtin_count != 150L * nthreads;
    printf("result: wide atomics and builtins %.1Lf %ld %ld %ld\n", ld,
           (long)(wide >> 40), sync_count, builtin_count);
    errors += atomic_bad;

    /* taskloops */
    long tl_sum = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop grainsize(64) shared(tl_sum)
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            tl_sum += i;
        }
#pragma omp taskloop num_tasks(7)
        for (int i = 0; i < N; i++)
            hits[i] += 1;
#pragma omp taskloop grainsize(strict: 100)
        for (unsigned long long k = BIG; k < BIG + N; k++)
            hits[k - BIG] += 1;
    }
    errors += check_hits("taskloops", 2);
    printf("result: taskloop sum %ld\n", tl_sum);
    errors += tl_sum != (long)N * (N - 1) / 2;

    long vla_sum = vla_task(500);
    printf("result: task with a variable-length array %ld\n", vla_sum);
    errors += vla_sum != 500L * 501 / 2;

    if (errors)
        fprintf(stderr, "gnu_loops: %d errors\n", errors);
    return errors ? 1 : 0;
}
