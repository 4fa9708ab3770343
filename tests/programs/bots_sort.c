/*
 * bots_sort.c - a task-parallel merge sort in the style of the Barcelona
 * OpenMP Tasks Suite's sort: the array is split recursively into halves
 * sorted by two tasks, down to a cut-off where insertion sort takes over,
 * and the halves are merged into a scratch buffer (large merges are split
 * with a binary search and merged by two tasks as well).  80000 integers
 * from a random generator, checked against qsort.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 80000
#define SORT_CUTOFF 512
#define MERGE_CUTOFF 2048

static void insertion_sort(int *a, long n)
{
    for (long i = 1; i < n; i++) {
        int v = a[i];
        long j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

/* first index in a[0..n) whose value is >= v */
static long lower_bound(const int *a, long n, int v)
{
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void merge(const int *a, long na, const int *b, long nb, int *out)
{
    if (na + nb <= MERGE_CUTOFF || na == 0) {
        long i = 0, j = 0, k = 0;
        while (i < na && j < nb)
            out[k++] = b[j] < a[i] ? b[j++] : a[i++];
        while (i < na)
            out[k++] = a[i++];
        while (j < nb)
            out[k++] = b[j++];
        return;
    }
    long ma = na / 2;
    long mb = lower_bound(b, nb, a[ma]);
#pragma omp task
    merge(a, ma, b, mb, out);
#pragma omp task
    merge(a + ma, na - ma, b + mb, nb - mb, out + ma + mb);
#pragma omp taskwait
}

static void sort(int *a, int *tmp, long n)
{
    if (n <= SORT_CUTOFF) {
        insertion_sort(a, n);
        return;
    }
    long half = n / 2;
#pragma omp task
    sort(a, tmp, half);
#pragma omp task
    sort(a + half, tmp + half, n - half);
#pragma omp taskwait
    merge(a, half, a + half, n - half, tmp);
    memcpy(a, tmp, n * sizeof *a);
}

static int compare(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

int main(void)
{
    int *a = malloc(N * sizeof *a), *tmp = malloc(N * sizeof *tmp);
    int *want = malloc(N * sizeof *want);
    unsigned long seed = 42;
    int errors = 0;

    for (long i = 0; i < N; i++) {
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        a[i] = want[i] = (int)(seed >> 40) % 1000000;
    }
#pragma omp parallel
#pragma omp single
    sort(a, tmp, N);

    qsort(want, N, sizeof *want, compare);
    unsigned long check = 0;
    for (long i = 0; i < N; i++) {
        if (a[i] != want[i])
            errors++;
        check = check * 31 + (unsigned)a[i];
    }
    printf("result: sorted %d min %d max %d check %lu\n", N, a[0], a[N - 1],
           check);
    free(a);
    free(tmp);
    free(want);
    if (errors)
        fprintf(stderr, "bots_sort: %d elements out of place\n", errors);
    return errors ? 1 : 0;
}
