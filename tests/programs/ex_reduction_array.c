/*
 * ex_reduction_array.c - reductions over arrays: a histogram in a global
 * array reduced with reduction(+ : hist), a section of a malloc'd array
 * (reduction(+ : p[0:M])), a max over a 2-D section, and a user-defined
 * reduction (declare reduction) combining a struct.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 5000
#define BINS 16
#define M 40

struct stats {
    long count;
    double sum;
    double max;
};

static void stats_merge(struct stats *out, const struct stats *in)
{
    out->count += in->count;
    out->sum += in->sum;
    if (in->max > out->max)
        out->max = in->max;
}

#pragma omp declare reduction(merge : struct stats : stats_merge(&omp_out, &omp_in)) \
    initializer(omp_priv = (struct stats){0, 0.0, -1.0})

long hist[BINS];

int main(void)
{
    int errors = 0;
    long *p = calloc(M, sizeof *p);
    int grid[4][4] = {{0}};
    struct stats st = {0, 0.0, -1.0};

#pragma omp parallel for reduction(+ : hist) reduction(+ : p[0:M])      \
    reduction(max : grid[0:4][0:4]) reduction(merge : st)
    for (int i = 0; i < N; i++) {
        int v = (i * 131) % 1000;
        hist[v % BINS]++;
        p[i % M] += v;
        int g = (i * 17) % 97;
        if (g > grid[i % 4][(i / 4) % 4])
            grid[i % 4][(i / 4) % 4] = g;
        st.count++;
        st.sum += v * 0.5;
        if (v > st.max)
            st.max = v;
    }

    long w_hist[BINS] = {0}, w_p[M] = {0};
    int w_grid[4][4] = {{0}};
    struct stats w = {0, 0.0, -1.0};
    for (int i = 0; i < N; i++) {
        int v = (i * 131) % 1000;
        w_hist[v % BINS]++;
        w_p[i % M] += v;
        int g = (i * 17) % 97;
        if (g > w_grid[i % 4][(i / 4) % 4])
            w_grid[i % 4][(i / 4) % 4] = g;
        w.count++;
        w.sum += v * 0.5;
        if (v > w.max)
            w.max = v;
    }
    long hsum = 0, psum = 0, gsum = 0;
    for (int b = 0; b < BINS; b++) {
        if (hist[b] != w_hist[b])
            errors++;
        hsum = hsum * 7 + hist[b];
    }
    for (int k = 0; k < M; k++) {
        if (p[k] != w_p[k])
            errors++;
        psum += p[k] * (k + 1);
    }
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            if (grid[a][b] != w_grid[a][b])
                errors++;
            gsum = gsum * 3 + grid[a][b];
        }
    if (st.count != w.count || st.sum != w.sum || st.max != w.max)
        errors++;
    printf("result: hist %ld p %ld grid %ld stats %ld %.1f %.1f\n", hsum,
           psum, gsum, st.count, st.sum, st.max);
    if (errors)
        fprintf(stderr, "ex_reduction_array: %d errors\n", errors);
    free(p);
    return errors ? 1 : 0;
}
