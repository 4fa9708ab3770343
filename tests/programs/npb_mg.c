/*
 * npb_mg.c - a multigrid V-cycle after the NAS MG benchmark: a 3-D
 * periodic grid of 32^3 points with +1 and -1 charges, residual,
 * smoother, restriction (damped sum of the 8 fine points) and
 * prolongation (piecewise constant) on levels 32, 16, 8, 4 and 2,
 * with the periodic borders refreshed by comm3 after each step.  Every
 * step is its own parallel loop over the planes, so the coarse levels run
 * many small loops (2 to 8 iterations).  Four V-cycles, the residual norm
 * after each, compared with the same code run with the loops' if clause
 * false (serially).
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LT 5              /* levels: 2^1 .. 2^5 */
#define NIT 4

static int par;           /* run the loops in parallel */

typedef struct {
    int n;                /* interior points per side; arrays are n+2 */
    double *u, *r;
} level_t;

#define IDX(l, i3, i2, i1) (((size_t)(i3) * ((l)->n + 2) + (i2)) * ((l)->n + 2) + (i1))

static level_t lev[LT + 1];
static double *v;

/* periodic borders: copy the opposite interior faces */
static void comm3(level_t *l, double *a)
{
    int n = l->n;
#pragma omp parallel for if (par)
    for (int i3 = 1; i3 <= n; i3++)
        for (int i2 = 1; i2 <= n; i2++) {
            a[IDX(l, i3, i2, 0)] = a[IDX(l, i3, i2, n)];
            a[IDX(l, i3, i2, n + 1)] = a[IDX(l, i3, i2, 1)];
        }
#pragma omp parallel for if (par)
    for (int i3 = 1; i3 <= n; i3++)
        for (int i1 = 0; i1 <= n + 1; i1++) {
            a[IDX(l, i3, 0, i1)] = a[IDX(l, i3, n, i1)];
            a[IDX(l, i3, n + 1, i1)] = a[IDX(l, i3, 1, i1)];
        }
#pragma omp parallel for if (par)
    for (int i2 = 0; i2 <= n + 1; i2++)
        for (int i1 = 0; i1 <= n + 1; i1++) {
            a[IDX(l, 0, i2, i1)] = a[IDX(l, n, i2, i1)];
            a[IDX(l, n + 1, i2, i1)] = a[IDX(l, 1, i2, i1)];
        }
}

/* r = rhs - A u, A a 7-point Laplacian-like operator */
static void resid(level_t *l, const double *rhs, const double *u, double *r)
{
    int n = l->n;
#pragma omp parallel for if (par)
    for (int i3 = 1; i3 <= n; i3++)
        for (int i2 = 1; i2 <= n; i2++)
            for (int i1 = 1; i1 <= n; i1++) {
                double nb = u[IDX(l, i3, i2, i1 - 1)] +
                            u[IDX(l, i3, i2, i1 + 1)] +
                            u[IDX(l, i3, i2 - 1, i1)] +
                            u[IDX(l, i3, i2 + 1, i1)] +
                            u[IDX(l, i3 - 1, i2, i1)] +
                            u[IDX(l, i3 + 1, i2, i1)];
                r[IDX(l, i3, i2, i1)] = rhs[IDX(l, i3, i2, i1)] -
                                        (-6.0 * u[IDX(l, i3, i2, i1)] + nb);
            }
    comm3(l, r);
}

/* u += S r, a damped Jacobi smoother */
static void psinv(level_t *l, const double *r, double *u)
{
    int n = l->n;
#pragma omp parallel for if (par)
    for (int i3 = 1; i3 <= n; i3++)
        for (int i2 = 1; i2 <= n; i2++)
            for (int i1 = 1; i1 <= n; i1++) {
                double nb = r[IDX(l, i3, i2, i1 - 1)] +
                            r[IDX(l, i3, i2, i1 + 1)] +
                            r[IDX(l, i3, i2 - 1, i1)] +
                            r[IDX(l, i3, i2 + 1, i1)] +
                            r[IDX(l, i3 - 1, i2, i1)] +
                            r[IDX(l, i3 + 1, i2, i1)];
                u[IDX(l, i3, i2, i1)] +=
                    -0.125 * r[IDX(l, i3, i2, i1)] - 0.015 * nb;
            }
    comm3(l, u);
}

/* coarse r = restriction of fine r (full weighting along each axis) */
static void rprj3(level_t *fine, level_t *coarse)
{
    int m = coarse->n;
    const double *rf = fine->r;
    double *rc = coarse->r;
#pragma omp parallel for if (par)
    for (int j3 = 1; j3 <= m; j3++)
        for (int j2 = 1; j2 <= m; j2++)
            for (int j1 = 1; j1 <= m; j1++) {
                int i3 = 2 * j3 - 1, i2 = 2 * j2 - 1, i1 = 2 * j1 - 1;
                double s = 0;
                for (int d3 = 0; d3 < 2; d3++)
                    for (int d2 = 0; d2 < 2; d2++)
                        for (int d1 = 0; d1 < 2; d1++)
                            s += rf[IDX(fine, i3 + d3, i2 + d2, i1 + d1)];
                rc[IDX(coarse, j3, j2, j1)] = 0.375 * s;
            }
    comm3(coarse, rc);
}

/* fine u += prolongation of coarse u (piecewise constant) */
static void interp(level_t *coarse, level_t *fine)
{
    int m = coarse->n;
    const double *uc = coarse->u;
    double *uf = fine->u;
#pragma omp parallel for if (par)
    for (int j3 = 1; j3 <= m; j3++)
        for (int j2 = 1; j2 <= m; j2++)
            for (int j1 = 1; j1 <= m; j1++) {
                double c = uc[IDX(coarse, j3, j2, j1)];
                int i3 = 2 * j3 - 1, i2 = 2 * j2 - 1, i1 = 2 * j1 - 1;
                for (int d3 = 0; d3 < 2; d3++)
                    for (int d2 = 0; d2 < 2; d2++)
                        for (int d1 = 0; d1 < 2; d1++)
                            uf[IDX(fine, i3 + d3, i2 + d2, i1 + d1)] += c;
            }
    comm3(fine, uf);
}

static void zero(level_t *l, double *a)
{
    size_t len = (size_t)(l->n + 2) * (l->n + 2) * (l->n + 2);
#pragma omp parallel for if (par)
    for (size_t k = 0; k < len; k++)
        a[k] = 0;
}

static double norm2(level_t *l, const double *r)
{
    int n = l->n;
    double s = 0;
#pragma omp parallel for reduction(+ : s) if (par)
    for (int i3 = 1; i3 <= n; i3++)
        for (int i2 = 1; i2 <= n; i2++)
            for (int i1 = 1; i1 <= n; i1++)
                s += r[IDX(l, i3, i2, i1)] * r[IDX(l, i3, i2, i1)];
    return sqrt(s / ((double)n * n * n));
}

static void vcycle(void)
{
    /* down: restrict the residual to the coarsest level */
    for (int k = LT; k > 1; k--)
        rprj3(&lev[k], &lev[k - 1]);
    zero(&lev[1], lev[1].u);
    psinv(&lev[1], lev[1].r, lev[1].u);
    /* up */
    for (int k = 2; k < LT; k++) {
        zero(&lev[k], lev[k].u);
        interp(&lev[k - 1], &lev[k]);
        resid(&lev[k], lev[k].r, lev[k].u, lev[k].r);
        psinv(&lev[k], lev[k].r, lev[k].u);
    }
    interp(&lev[LT - 1], &lev[LT]);
    resid(&lev[LT], v, lev[LT].u, lev[LT].r);
    psinv(&lev[LT], lev[LT].r, lev[LT].u);
}

static double run(double *norms)
{
    level_t *top = &lev[LT];
    zero(top, top->u);
    zero(top, v);
    /* charges: +1 at ten points, -1 at ten others */
    for (int c = 0; c < 20; c++) {
        int i3 = 1 + (c * 7) % top->n, i2 = 1 + (c * 13 + 3) % top->n;
        int i1 = 1 + (c * 29 + 5) % top->n;
        v[IDX(top, i3, i2, i1)] = c < 10 ? 1.0 : -1.0;
    }
    comm3(top, v);
    resid(top, v, top->u, top->r);
    for (int it = 0; it < NIT; it++) {
        vcycle();
        resid(top, v, top->u, top->r);
        norms[it] = norm2(top, top->r);
    }
    double check = 0;
    for (int i3 = 1; i3 <= top->n; i3++)
        for (int i2 = 1; i2 <= top->n; i2++)
            for (int i1 = 1; i1 <= top->n; i1++)
                check += top->u[IDX(top, i3, i2, i1)] * ((i1 + i2 + i3) % 5);
    return check;
}

int main(void)
{
    int errors = 0;
    double norms[NIT], want_norms[NIT];

    for (int k = 1; k <= LT; k++) {
        lev[k].n = 1 << k;
        size_t len = (size_t)(lev[k].n + 2) * (lev[k].n + 2) * (lev[k].n + 2);
        lev[k].u = malloc(len * sizeof(double));
        lev[k].r = malloc(len * sizeof(double));
    }
    v = malloc((size_t)34 * 34 * 34 * sizeof(double));

    par = 1;
    double check = run(norms);
    size_t len = (size_t)34 * 34 * 34;
    double *u_par = malloc(len * sizeof(double));
    memcpy(u_par, lev[LT].u, len * sizeof(double));
    par = 0;
    double want = run(want_norms);
    if (memcmp(u_par, lev[LT].u, len * sizeof(double)) != 0 || check != want)
        errors++;
    for (int it = 0; it < NIT; it++) {
        if (fabs(norms[it] - want_norms[it]) > 1e-10 * want_norms[it])
            errors++;
        printf("result: iteration %d residual %.8e\n", it + 1,
               want_norms[it]);
    }
    printf("result: check %.10e\n", want);
    for (int k = 1; k <= LT; k++) {
        free(lev[k].u);
        free(lev[k].r);
    }
    free(v);
    free(u_par);
    if (errors)
        fprintf(stderr, "npb_mg: %d errors (check %.15e want %.15e)\n",
                errors, check, want);
    return errors ? 1 : 0;
}
