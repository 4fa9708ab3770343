/*
 * epcc_stats.c - mean, median, extremes, standard deviation and outlier
 * count of a benchmark's outer repetitions (EPCC reports the same set).
 *
 * Layer: bench (libc only).  Entry point: epcc_stats_compute.  No global
 * state; callable from any thread.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "epcc_stats.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

dsm_status_t epcc_stats_compute(const double *samples, size_t count,
                                double *scratch, epcc_stats_t *out)
{
    if (!samples || !scratch || !out || count == 0)
        return DSM_ERR_INVALID;

    epcc_stats_t s = { .count = count, .min = samples[0],
                       .max = samples[0] };
    double sum = 0.0;
    for (size_t i = 0; i < count; i++) {
        sum += samples[i];
        if (samples[i] < s.min)
            s.min = samples[i];
        if (samples[i] > s.max)
            s.max = samples[i];
    }
    s.mean = sum / (double)count;

    /* Two passes: the squares of deviations, not of raw values, so large
     * means do not cancel small spreads. */
    double squares = 0.0;
    for (size_t i = 0; i < count; i++)
        squares += (samples[i] - s.mean) * (samples[i] - s.mean);
    s.sd = count > 1 ? sqrt(squares / (double)(count - 1)) : 0.0;
    for (size_t i = 0; i < count; i++)
        if (fabs(samples[i] - s.mean) > 3.0 * s.sd && s.sd > 0.0)
            s.outliers++;

    memcpy(scratch, samples, count * sizeof *scratch);
    qsort(scratch, count, sizeof *scratch, compare_doubles);
    s.median = count % 2 ? scratch[count / 2]
                         : (scratch[count / 2 - 1] + scratch[count / 2]) / 2.0;
    *out = s;
    return DSM_OK;
}
