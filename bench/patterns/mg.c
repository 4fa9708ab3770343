/*
 * mg.c - multigrid V-cycles for the 3-D Poisson equation -lap u = f (7-point
 * stencil, zero boundary), as an OpenMP programmer writes them: on every
 * level two weighted-Jacobi smoothings, the residual, a full-weighting
 * restriction, the coarser cycle, a trilinear prolongation and two more
 * smoothings, each its own parallel loop over z planes.  A step is one
 * V-cycle: about 40 parallel loops, most of them on coarse levels where a
 * loop has a few planes of a few points.
 *
 * Check: the same V-cycles computed serially (same arithmetic per point)
 * must give the same solution (to 1e-12), and the residual must have
 * shrunk by 1e3 once six cycles ran (by half per cycle before that).
 *
 * Usage: mg [-n N (finest grid (N+1)^3, N a power of two)] [-s STEPS]
 *           [-T SECONDS] [-w WARMUP]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"

#define MAX_LEVELS 12
#define OMEGA (6.0 / 7.0)   /* Jacobi weight of a good 3-D smoother */

struct level {
    long m;                /* points per side, boundaries included */
    double h2;             /* mesh width squared */
    double *u, *t, *f, *r; /* solution, smoother's target, rhs, residual */
};

struct multigrid {
    long levels;           /* level 1 (3^3 points) to level `levels` */
    struct level level[MAX_LEVELS + 1];
};

#define AT(g, z, y, x) ((g)[((z) * m + (y)) * m + (x)])

static void smooth_plane(struct level *g, long z)
{
    long m = g->m;
    for (long y = 1; y < m - 1; y++)
        for (long x = 1; x < m - 1; x++) {
            double u = AT(g->u, z, y, x);
            double sum = AT(g->u, z - 1, y, x) + AT(g->u, z + 1, y, x) +
                         AT(g->u, z, y - 1, x) + AT(g->u, z, y + 1, x) +
                         AT(g->u, z, y, x - 1) + AT(g->u, z, y, x + 1);
            double jacobi = (g->h2 * AT(g->f, z, y, x) + sum) / 6.0;
            AT(g->t, z, y, x) = u + OMEGA * (jacobi - u);
        }
}

static void residual_plane(struct level *g, long z)
{
    long m = g->m;
    for (long y = 1; y < m - 1; y++)
        for (long x = 1; x < m - 1; x++) {
            double sum = AT(g->u, z - 1, y, x) + AT(g->u, z + 1, y, x) +
                         AT(g->u, z, y - 1, x) + AT(g->u, z, y + 1, x) +
                         AT(g->u, z, y, x - 1) + AT(g->u, z, y, x + 1);
            AT(g->r, z, y, x) = AT(g->f, z, y, x) -
                                (6.0 * AT(g->u, z, y, x) - sum) / g->h2;
        }
}

/* Coarse plane Z of level C from the residual of level C + 1 (full
 * weighting); also clears the coarse solution, the cycle's first guess. */
static void restrict_plane(struct level *c, long z)
{
    const struct level *fine = c + 1;
    long mc = c->m, m = fine->m;
    for (long y = 1; y < mc - 1; y++)
        for (long x = 1; x < mc - 1; x++) {
            double sum = 0.0;
            for (long dz = -1; dz <= 1; dz++)
                for (long dy = -1; dy <= 1; dy++)
                    for (long dx = -1; dx <= 1; dx++) {
                        double w = 1.0 / (double)(1 << (labs(dz) + labs(dy) +
                                                        labs(dx)));
                        sum += w * AT(fine->r, 2 * z + dz, 2 * y + dy,
                                      2 * x + dx);
                    }
            c->f[(z * mc + y) * mc + x] = sum / 8.0;
            c->u[(z * mc + y) * mc + x] = 0.0;
        }
}

/* Fine plane Z of level G: add the trilinear interpolation of level G - 1. */
static void prolong_plane(struct level *g, long z)
{
    const struct level *c = g - 1;
    long m = g->m, mc = c->m;
    long z0 = z / 2, z1 = (z + 1) / 2;
    for (long y = 1; y < m - 1; y++) {
        long y0 = y / 2, y1 = (y + 1) / 2;
        for (long x = 1; x < m - 1; x++) {
            long x0 = x / 2, x1 = (x + 1) / 2;
            const double *u = c->u;
            double sum =
                u[(z0 * mc + y0) * mc + x0] + u[(z0 * mc + y0) * mc + x1] +
                u[(z0 * mc + y1) * mc + x0] + u[(z0 * mc + y1) * mc + x1] +
                u[(z1 * mc + y0) * mc + x0] + u[(z1 * mc + y0) * mc + x1] +
                u[(z1 * mc + y1) * mc + x0] + u[(z1 * mc + y1) * mc + x1];
            AT(g->u, z, y, x) += sum / 8.0;
        }
    }
}

typedef void (*plane_fn)(struct level *g, long z);

/* FN on every interior plane of level G: in parallel, or serially for
 * the check. */
static void planes_parallel(plane_fn fn, struct level *g)
{
    long m = g->m;
#pragma omp parallel for schedule(static)
    for (long z = 1; z < m - 1; z++)
        fn(g, z);
}

static void planes_serial(plane_fn fn, struct level *g)
{
    for (long z = 1; z < g->m - 1; z++)
        fn(g, z);
}

typedef void (*planes_fn)(plane_fn fn, struct level *g);

static void smooth(planes_fn planes, struct level *g)
{
    planes(smooth_plane, g);
    double *swap = g->u;
    g->u = g->t;
    g->t = swap;
}

static void v_cycle(planes_fn planes, struct multigrid *mg, long l)
{
    struct level *g = &mg->level[l];
    if (l == 1) {      /* one unknown: solve it */
        g->u[13] = g->h2 * g->f[13] / 6.0;
        return;
    }
    smooth(planes, g);
    smooth(planes, g);
    planes(residual_plane, g);
    planes(restrict_plane, g - 1);
    v_cycle(planes, mg, l - 1);
    planes(prolong_plane, g);
    smooth(planes, g);
    smooth(planes, g);
}

static void mg_step(void *state, long step)
{
    (void)step;
    struct multigrid *mg = state;
    v_cycle(planes_parallel, mg, mg->levels);
}

static double rhs(long m, long z, long y, long x)
{
    double h = 1.0 / (double)(m - 1);
    double px = (double)x * h, py = (double)y * h, pz = (double)z * h;
    return sin(M_PI * px) * sin(2.0 * M_PI * py) * sin(M_PI * pz) +
           (double)((x * 3 + y * 5 + z * 7) % 13) / 13.0;
}

/* Allocates the levels and sets u = 0 and f on the finest; returns false
 * when out of memory.  PARALLEL: first touch by the smoothers' planes. */
static bool build(struct multigrid *mg, long n, bool parallel)
{
    long levels = 0;
    while ((1L << levels) < n)
        levels++;
    mg->levels = levels;
    memset(mg->level, 0, sizeof mg->level);
    for (long l = 1; l <= levels; l++) {
        struct level *g = &mg->level[l];
        long m = (1L << l) + 1, points = m * m * m;
        g->m = m;
        g->h2 = 1.0 / (double)((m - 1) * (m - 1));
        double **arrays[] = {&g->u, &g->t, &g->f, &g->r};
        for (int a = 0; a < 4; a++) {
            *arrays[a] = malloc((size_t)points * sizeof(double));
            if (*arrays[a] == NULL)
                return false;
        }
        double *u = g->u, *t = g->t, *f = g->f, *r = g->r;
        bool finest = l == levels;
#pragma omp parallel for schedule(static) if (parallel)
        for (long z = 0; z < m; z++)
            for (long y = 0; y < m; y++)
                for (long x = 0; x < m; x++) {
                    long i = (z * m + y) * m + x;
                    bool inside = z > 0 && y > 0 && x > 0 && z < m - 1 &&
                                  y < m - 1 && x < m - 1;
                    u[i] = t[i] = r[i] = 0.0;
                    f[i] = finest && inside ? rhs(m, z, y, x) : 0.0;
                }
    }
    return true;
}

static void release(struct multigrid *mg)
{
    for (long l = 1; l <= mg->levels; l++) {
        free(mg->level[l].u);
        free(mg->level[l].t);
        free(mg->level[l].f);
        free(mg->level[l].r);
    }
}

static double residual_norm(struct multigrid *mg)
{
    struct level *g = &mg->level[mg->levels];
    planes_serial(residual_plane, g);
    double sum = 0.0;
    for (long i = 0; i < g->m * g->m * g->m; i++)
        sum += g->r[i] * g->r[i];
    return sqrt(sum);
}

int main(int argc, char **argv)
{
    patterns_options_t o;
    patterns_parse(argc, argv, "mg", 64, 4, 1L << (MAX_LEVELS - 1), 1000000,
                   &o);
    long n = o.size;
    if (n & (n - 1)) {
        fprintf(stderr, "mg: size -n must be a power of two: '%ld'\n", n);
        return PATTERNS_EXIT_USAGE;
    }
    struct multigrid mg, reference;
    if (!build(&mg, n, true) || !build(&reference, n, false)) {
        fprintf(stderr, "mg: out of memory\n");
        return PATTERNS_EXIT_WRONG;
    }
    double initial_residual = residual_norm(&reference);

    double seconds;
    long steps = patterns_run(&o, mg_step, &mg, &seconds);

    long total = o.warmup + steps;
    for (long s = 0; s < total; s++)
        v_cycle(planes_serial, &reference, reference.levels);
    struct level *g = &mg.level[mg.levels];
    struct level *want = &reference.level[reference.levels];
    long points = g->m * g->m * g->m;
    double error = patterns_max_difference(g->u, want->u, points);
    double final_residual = residual_norm(&reference);
    double wanted = total >= 6 ? 1e-3 : pow(0.5, (double)total);
    bool converging = final_residual <= wanted * initial_residual;
    if (!converging)
        fprintf(stderr, "mg: residual %.3g after %ld cycles, from %.3g\n",
                final_residual, total, initial_residual);
    int status = patterns_report(&o, steps, seconds,
                                 error <= 1e-12 && converging, error);
    release(&mg);
    release(&reference);
    return status;
}
