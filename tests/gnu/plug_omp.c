/* plug_omp.c - what gcc makes of OpenMP constructs, after dsm's GCC
 * plug-in: atomics on shared data become runtime calls (a double +=, a
 * loop of compare-exchanges, starts from load_seed), reductions combine
 * through the runtime, flush is the runtime's, and each parallel region
 * and copyprivate announces the size of its data block.  The gnu suite,
 * at -O0 and -O2. */
#include <omp.h>

double total;
int hits;
int table[100];
#pragma omp threadprivate(table)

/* ATOMICS-LABEL: Function atomics._omp_fn.0
 * ATOMICS: __dsm_atomic_rmw_4 ({{.*}}hits, 1, 1, 0)
 * ATOMICS: __dsm_atomic_load_seed_8 ({{.*}}, 0)
 * ATOMICS: __dsm_atomic_cmpxchg_8 (
 * ATOMICS: __kmpc_flush (0B)
 */
void atomics(void)
{
#pragma omp parallel
    {
#pragma omp atomic
        hits++;
#pragma omp atomic
        total += 0.5;
#pragma omp flush
    }
}

/* the combination of a reduction: an atomic at the shared variable; the
 * region's block holds s, n and a
 * COMBINE-LABEL: Function reduce._omp_fn.0
 * COMBINE: __dsm_atomic_load_seed_8 (
 * COMBINE: __dsm_atomic_cmpxchg_8 (
 * REDUCE-LABEL: Function reduce (
 * REDUCE: __dsm_gomp_data_size (24)
 * REDUCE-NEXT: GOMP_parallel (reduce._omp_fn.0
 */
double reduce(const double *a, int n)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* copyin of a threadprivate array: the block holds the master's address
 * COPYIN-LABEL: Function copied (
 * COPYIN: __dsm_gomp_data_size (8)
 * COPYIN-NEXT: GOMP_parallel (copied._omp_fn.0
 */
void copied(void)
{
#pragma omp parallel copyin(table)
    table[1]++;
}

/* copyprivate: the block of the single thread's variables
 * COPYPRIVATE-LABEL: Function broadcast._omp_fn.0
 * COPYPRIVATE: __dsm_gomp_data_size (4)
 * COPYPRIVATE-NEXT: GOMP_single_copy_end (
 */
int broadcast(void)
{
    int got = 0;
#pragma omp parallel reduction(+ : got)
    {
        int v;
#pragma omp single copyprivate(v)
        v = 42;
        got += v;
    }
    return got;
}

/* a local whose address nothing but atomics uses is this thread's alone
 * and stays native; one whose address escapes does not
 * PRIVATE-LABEL: Function private_counter
 * PRIVATE-NOT: __dsm_atomic
 * PRIVATE: }
 * ESCAPING-LABEL: Function escaping_counter
 * ESCAPING: __dsm_atomic_rmw_4
 */
int private_counter(int n)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        __atomic_fetch_add(&c, 1, __ATOMIC_RELAXED);
    return c;
}

void publish(int *p);

int escaping_counter(int n)
{
    int c = 0;
    publish(&c);
    for (int i = 0; i < n; i++)
        __atomic_fetch_add(&c, 1, __ATOMIC_RELAXED);
    return c;
}
