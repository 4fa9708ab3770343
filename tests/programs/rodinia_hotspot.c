/*
 * rodinia_hotspot.c - a thermal simulation stencil after Rodinia's
 * hotspot: a grid of temperatures and a grid of dissipated powers, each
 * step computing every cell's new temperature from its four neighbours,
 * the power and the ambient temperature, into a second grid, then
 * swapping the two pointers.  Parallel loops over rows with
 * shared / firstprivate clauses, against a serial run of the same steps
 * (bit-identical: every cell is computed from the previous step only).
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 96
#define COLS 80
#define STEPS 25

static const double amb_temp = 80.0;

static void step(const double *temp, const double *power, double *result,
                 double cap, double rx, double ry, double rz, double dt,
                 int parallel)
{
#pragma omp parallel for shared(temp, power, result) \
    firstprivate(cap, rx, ry, rz, dt) if (parallel) schedule(static)
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            double t = temp[r * COLS + c];
            double n = r > 0 ? temp[(r - 1) * COLS + c] : t;
            double s = r < ROWS - 1 ? temp[(r + 1) * COLS + c] : t;
            double w = c > 0 ? temp[r * COLS + c - 1] : t;
            double e = c < COLS - 1 ? temp[r * COLS + c + 1] : t;
            double delta = (dt / cap) * (power[r * COLS + c] +
                                         (n + s - 2.0 * t) / ry +
                                         (e + w - 2.0 * t) / rx +
                                         (amb_temp - t) / rz);
            result[r * COLS + c] = t + delta;
        }
}

static double *simulate(double *a, double *b, const double *power,
                        int parallel)
{
    double grid_w = 0.016 / COLS, grid_h = 0.016 / ROWS;
    double cap = 0.5 * 1.75e6 * 0.0005 * grid_w * grid_h;
    double rx = grid_w / (2.0 * 100 * 0.0005 * grid_h);
    double ry = grid_h / (2.0 * 100 * 0.0005 * grid_w);
    double rz = 0.0005 / (100 * grid_h * grid_w);
    double dt = 0.001 * (3.0e6 / (0.5 * 1.75e6)) / 1000.0;
    for (int s = 0; s < STEPS; s++) {
        step(a, power, b, cap, rx, ry, rz, dt, parallel);
        double *t = a;
        a = b;
        b = t;
    }
    return a;
}

int main(void)
{
    size_t n = (size_t)ROWS * COLS;
    double *power = malloc(n * sizeof *power);
    double *t0 = malloc(n * sizeof *t0), *t1 = malloc(n * sizeof *t1);
    double *s0 = malloc(n * sizeof *s0), *s1 = malloc(n * sizeof *s1);
    int errors = 0;

    for (size_t k = 0; k < n; k++) {
        power[k] = ((k * 7) % 13) * 1e-3;
        t0[k] = s0[k] = 320.0 + (double)((k * 11) % 17);
    }
    double *got = simulate(t0, t1, power, 1);
    double *want = simulate(s0, s1, power, 0);
    double sum = 0, max = 0;
    for (size_t k = 0; k < n; k++) {
        if (got[k] != want[k])
            errors++;
        sum += want[k];
        if (want[k] > max)
            max = want[k];
    }
    printf("result: mean %.9f max %.9f\n", sum / n, max);
    free(power);
    free(t0);
    free(t1);
    free(s0);
    free(s1);
    if (errors)
        fprintf(stderr, "rodinia_hotspot: %d cells differ\n", errors);
    return errors ? 1 : 0;
}
