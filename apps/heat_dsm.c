/*
 * heat_dsm.c - 1D heat diffusion written against the dsmomp C API: each
 * node allocates and computes its own block of the rod in the sharable heap
 * (so it homes the pages it writes) and reads its neighbours' edge values
 * through the DSM; a barrier separates sweeps.  Node 0 checks the result
 * against a serial computation and the program exits non-zero when wrong.
 *
 * Usage: heat_dsm [points] [sweeps]     (defaults 1000000 100)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dsm.h"

#define MAX_NODES 256

static DSM_SHARABLE double *blocks[2][MAX_NODES];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse_count(const char *text, long *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v <= 0)
        return -1;
    *out = v;
    return 0;
}

static double initial(long i, long n)
{
    return (i > n / 3 && i < 2 * n / 3) ? 100.0 : 0.0;
}

int main(int argc, char **argv)
{
    long n = 1000000, sweeps = 100;
    if (argc > 3 || (argc > 1 && parse_count(argv[1], &n)) ||
        (argc > 2 && parse_count(argv[2], &sweeps))) {
        fprintf(stderr, "usage: heat_dsm [points] [sweeps] (positive integers)\n");
        return 2;
    }
    dsm_status_t st = dsm_init();
    if (st != DSM_OK) {
        fprintf(stderr, "heat_dsm: dsm_init: %s\n", dsm_status_string(st));
        return 1;
    }
    int rank = dsm_node_id(), nodes = dsm_num_nodes();
    if (nodes > MAX_NODES || n < nodes) {
        fprintf(stderr, "heat_dsm: need at least one point per node\n");
        return 2;
    }
    long lo = n * rank / nodes, hi = n * (rank + 1) / nodes, len = hi - lo;
    for (int b = 0; b < 2; b++) {
        blocks[b][rank] = dsm_malloc((size_t)len * sizeof(double));
        if (!blocks[b][rank]) {
            fprintf(stderr, "heat_dsm: out of sharable memory\n");
            return 1;
        }
    }
    for (long i = 0; i < len; i++)
        blocks[0][rank][i] = initial(lo + i, n);
    dsm_barrier();

    double t0 = now();
    const double alpha = 0.25;
    for (long s = 0; s < sweeps; s++) {
        double *old = blocks[s & 1][rank], *new = blocks[(s + 1) & 1][rank];
        double *left = rank > 0 ? blocks[s & 1][rank - 1] : NULL;
        double *right = rank < nodes - 1 ? blocks[s & 1][rank + 1] : NULL;
        long left_len = rank > 0 ? n * rank / nodes - n * (rank - 1) / nodes : 0;
        for (long i = 0; i < len; i++) {
            double l = i > 0 ? old[i - 1] : left ? left[left_len - 1] : 0.0;
            double r = i < len - 1 ? old[i + 1] : right ? right[0] : 0.0;
            new[i] = old[i] + alpha * (l - 2.0 * old[i] + r);
        }
        dsm_barrier();
    }
    double elapsed = now() - t0;

    int status = 0;
    if (rank == 0) {
        double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
        for (long i = 0; i < n; i++)
            a[i] = initial(i, n);
        for (long s = 0; s < sweeps; s++) {
            for (long i = 0; i < n; i++) {
                double l = i > 0 ? a[i - 1] : 0.0, r = i < n - 1 ? a[i + 1] : 0.0;
                b[i] = a[i] + alpha * (l - 2.0 * a[i] + r);
            }
            double *t = a; a = b; b = t;
        }
        double maxerr = 0.0, sum = 0.0;
        for (int k = 0; k < nodes; k++) {
            long klo = n * k / nodes, khi = n * (k + 1) / nodes;
            const double *blk = blocks[sweeps & 1][k];
            for (long i = klo; i < khi; i++) {
                double d = fabs(blk[i - klo] - a[i]);
                maxerr = d > maxerr ? d : maxerr;
                sum += blk[i - klo];
            }
        }
        printf("heat_dsm: %ld points, %ld sweeps, %d nodes: %.3f s, "
               "%.1f Mpoint-updates/s, checksum %.6f, max error %.3g\n",
               n, sweeps, nodes, elapsed, (double)n * (double)sweeps / elapsed / 1e6,
               sum, maxerr);
        if (maxerr > 1e-9) {
            fprintf(stderr, "heat_dsm: WRONG RESULT (max error %g)\n", maxerr);
            status = 1;
        }
        free(a);
        free(b);
    }
    dsm_barrier();
    dsm_finalize();
    return status;
}
