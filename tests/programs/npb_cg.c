/*
 * npb_cg.c - a conjugate-gradient kernel after the NAS CG benchmark: a
 * random sparse symmetric positive definite matrix in CSR form, and an
 * inverse power iteration whose every step solves A z = x with 25 CG
 * iterations.  As in NPB's OpenMP version, each CG iteration runs in one
 * parallel region of work-sharing loops: the sparse matrix-vector
 * product and several dot products (reductions).  zeta = shift +
 * 1 / (x . z) is compared with a serial run of the same algorithm.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define NA 1400
#define PER_ROW 7
#define NITER 5
#define CGIT 25
#define SHIFT 12.0

static int rowstr[NA + 1], *colidx;
static double *aval;

static unsigned long rng = 314159265UL;
static double rnd(void)
{
    rng = rng * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* a symmetric matrix with random off-diagonal entries and a dominant
 * diagonal, assembled serially */
static void makea(void)
{
    static double dense_row[NA];
    static int pairs_i[NA * PER_ROW], pairs_j[NA * PER_ROW];
    static double pairs_v[NA * PER_ROW];
    int np = 0;
    for (int i = 0; i < NA; i++)
        for (int k = 0; k < PER_ROW; k++) {
            int j = (int)(rnd() * NA);
            if (j == i)
                continue;
            pairs_i[np] = i;
            pairs_j[np] = j;
            pairs_v[np] = rnd() - 0.5;
            np++;
        }
    /* count entries per row (each pair stored twice), plus the diagonal */
    int *count = calloc(NA, sizeof *count);
    for (int p = 0; p < np; p++) {
        count[pairs_i[p]]++;
        count[pairs_j[p]]++;
    }
    rowstr[0] = 0;
    for (int i = 0; i < NA; i++)
        rowstr[i + 1] = rowstr[i] + count[i] + 1;
    colidx = malloc(rowstr[NA] * sizeof *colidx);
    aval = malloc(rowstr[NA] * sizeof *aval);
    int *fill = calloc(NA, sizeof *fill);
    for (int i = 0; i < NA; i++)
        dense_row[i] = 0;
    for (int p = 0; p < np; p++) {
        int i = pairs_i[p], j = pairs_j[p];
        int at = rowstr[i] + fill[i]++;
        colidx[at] = j;
        aval[at] = pairs_v[p];
        at = rowstr[j] + fill[j]++;
        colidx[at] = i;
        aval[at] = pairs_v[p];
        dense_row[i] += fabs(pairs_v[p]);
        dense_row[j] += fabs(pairs_v[p]);
    }
    for (int i = 0; i < NA; i++) {
        int at = rowstr[i] + fill[i];
        colidx[at] = i;
        aval[at] = dense_row[i] + 1.0;
    }
    free(count);
    free(fill);
}

/* one CG solve of A z = x; returns ||x - A z|| */
static double conj_grad(const double *x, double *z, double *p, double *q,
                        double *r, int parallel)
{
    double rho = 0, rho0 = 0, d = 0, rnorm = 0;
#pragma omp parallel if (parallel)
    {
#pragma omp for
        for (int j = 0; j < NA; j++) {
            q[j] = 0;
            z[j] = 0;
            r[j] = x[j];
            p[j] = r[j];
        }
#pragma omp for reduction(+ : rho)
        for (int j = 0; j < NA; j++)
            rho += r[j] * r[j];
        for (int it = 0; it < CGIT; it++) {
#pragma omp single nowait
            {
                rho0 = rho;
                d = 0;
                rho = 0;
            }
#pragma omp for
            for (int j = 0; j < NA; j++) {
                double s = 0;
                for (int k = rowstr[j]; k < rowstr[j + 1]; k++)
                    s += aval[k] * p[colidx[k]];
                q[j] = s;
            }
#pragma omp for reduction(+ : d)
            for (int j = 0; j < NA; j++)
                d += p[j] * q[j];
            double alpha = rho0 / d;
#pragma omp for reduction(+ : rho)
            for (int j = 0; j < NA; j++) {
                z[j] += alpha * p[j];
                r[j] -= alpha * q[j];
                rho += r[j] * r[j];
            }
            double beta = rho / rho0;
#pragma omp for
            for (int j = 0; j < NA; j++)
                p[j] = r[j] + beta * p[j];
        }
#pragma omp for reduction(+ : rnorm)
        for (int j = 0; j < NA; j++) {
            double s = 0;
            for (int k = rowstr[j]; k < rowstr[j + 1]; k++)
                s += aval[k] * z[colidx[k]];
            rnorm += (x[j] - s) * (x[j] - s);
        }
    }
    return sqrt(rnorm);
}

static double power_iteration(int parallel, double *last_rnorm)
{
    double *x = malloc(NA * sizeof *x), *z = malloc(NA * sizeof *z);
    double *p = malloc(NA * sizeof *p), *q = malloc(NA * sizeof *q);
    double *r = malloc(NA * sizeof *r);
    double zeta = 0;
    for (int j = 0; j < NA; j++)
        x[j] = 1.0;
    for (int it = 0; it < NITER; it++) {
        *last_rnorm = conj_grad(x, z, p, q, r, parallel);
        double xz = 0, zz = 0;
#pragma omp parallel for reduction(+ : xz, zz) if (parallel)
        for (int j = 0; j < NA; j++) {
            xz += x[j] * z[j];
            zz += z[j] * z[j];
        }
        zeta = SHIFT + 1.0 / xz;
        double norm = 1.0 / sqrt(zz);
#pragma omp parallel for if (parallel)
        for (int j = 0; j < NA; j++)
            x[j] = norm * z[j];
    }
    free(x);
    free(z);
    free(p);
    free(q);
    free(r);
    return zeta;
}

int main(void)
{
    int errors = 0;
    double rnorm_par, rnorm_ser;

    makea();
    double zeta = power_iteration(1, &rnorm_par);
    double want = power_iteration(0, &rnorm_ser);
    if (fabs(zeta - want) > 1e-10 * fabs(want) || !(rnorm_par < 1e-6))
        errors++;
    printf("result: nonzeros %d zeta %.8f\n", rowstr[NA], want);
    if (errors)
        fprintf(stderr, "npb_cg: zeta %.15f want %.15f rnorm %g\n", zeta,
                want, rnorm_par);
    free(colidx);
    free(aval);
    return errors ? 1 : 0;
}
