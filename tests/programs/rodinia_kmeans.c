/*
 * rodinia_kmeans.c - k-means clustering after Rodinia's OpenMP kmeans:
 * each iteration a parallel loop assigns every point to its nearest
 * centre, counting membership changes with a reduction and accumulating
 * per-thread partial centres in arrays indexed by omp_get_thread_num()
 * (allocated for omp_get_max_threads() threads), which the master then
 * sums.  Points have integer coordinates, so the sums are exact and the
 * clustering equals a serial run's.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPOINTS 3000
#define NFEAT 4
#define K 5
#define MAXIT 30

static float pts[NPOINTS][NFEAT];

static int nearest(const float *p, float centres[K][NFEAT])
{
    int best = 0;
    float best_d = 0;
    for (int c = 0; c < K; c++) {
        float d = 0;
        for (int f = 0; f < NFEAT; f++)
            d += (p[f] - centres[c][f]) * (p[f] - centres[c][f]);
        if (c == 0 || d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

static int cluster(int *membership, float centres[K][NFEAT], int parallel)
{
    int nthreads = parallel ? omp_get_max_threads() : 1;
    float *partial = malloc((size_t)nthreads * K * NFEAT * sizeof *partial);
    int *partial_len = malloc((size_t)nthreads * K * sizeof *partial_len);
    int it;

    for (int c = 0; c < K; c++)
        for (int f = 0; f < NFEAT; f++)
            centres[c][f] = pts[c * 7][f];
    for (int i = 0; i < NPOINTS; i++)
        membership[i] = -1;
    for (it = 0; it < MAXIT; it++) {
        int delta = 0;
        memset(partial, 0, (size_t)nthreads * K * NFEAT * sizeof *partial);
        memset(partial_len, 0, (size_t)nthreads * K * sizeof *partial_len);
#pragma omp parallel for if (parallel) reduction(+ : delta) schedule(static)
        for (int i = 0; i < NPOINTS; i++) {
            int tid = omp_get_thread_num();
            int c = nearest(pts[i], centres);
            if (membership[i] != c)
                delta++;
            membership[i] = c;
            partial_len[tid * K + c]++;
            for (int f = 0; f < NFEAT; f++)
                partial[(tid * K + c) * NFEAT + f] += pts[i][f];
        }
        for (int c = 0; c < K; c++) {
            float sum[NFEAT] = {0};
            int len = 0;
            for (int t = 0; t < nthreads; t++) {
                len += partial_len[t * K + c];
                for (int f = 0; f < NFEAT; f++)
                    sum[f] += partial[(t * K + c) * NFEAT + f];
            }
            if (len > 0)
                for (int f = 0; f < NFEAT; f++)
                    centres[c][f] = sum[f] / len;
        }
        if (delta == 0)
            break;
    }
    free(partial);
    free(partial_len);
    return it;
}

int main(void)
{
    int *member = malloc(NPOINTS * sizeof *member);
    int *want = malloc(NPOINTS * sizeof *want);
    float centres[K][NFEAT], want_centres[K][NFEAT];
    unsigned seed = 77;
    int errors = 0;

    for (int i = 0; i < NPOINTS; i++)
        for (int f = 0; f < NFEAT; f++) {
            seed = seed * 1103515245u + 12345u;
            int blob = i % K;
            pts[i][f] = (float)(blob * 40 + (int)((seed >> 16) % 50));
        }
    int iters = cluster(member, centres, 1);
    int want_iters = cluster(want, want_centres, 0);
    int sizes[K] = {0};
    for (int i = 0; i < NPOINTS; i++) {
        if (member[i] != want[i])
            errors++;
        sizes[member[i]]++;
    }
    if (iters != want_iters ||
        memcmp(centres, want_centres, sizeof centres) != 0)
        errors++;
    printf("result: iterations %d sizes", want_iters);
    for (int c = 0; c < K; c++)
        printf(" %d", sizes[c]);
    printf("\nresult: centre0 %.4f %.4f %.4f %.4f\n",
           (double)want_centres[0][0], (double)want_centres[0][1],
           (double)want_centres[0][2], (double)want_centres[0][3]);
    free(member);
    free(want);
    if (errors)
        fprintf(stderr, "rodinia_kmeans: %d errors\n", errors);
    return errors ? 1 : 0;
}
