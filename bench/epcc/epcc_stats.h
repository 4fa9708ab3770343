/*
 * epcc_stats.h - summary statistics of a benchmark's outer repetitions.
 *
 * Layer: bench (libc only; shared by syncbench, schedbench, mpibench and
 * their unit tests).  Entry point: epcc_stats_compute.  Plain computation:
 * callable from any thread, no global state.
 */
#ifndef EPCC_STATS_H
#define EPCC_STATS_H

#include <stddef.h>

#include "dsm.h"

typedef struct epcc_stats {
    size_t count;
    double mean;
    double median;
    double min;
    double max;
    double sd;        /* sample standard deviation (n - 1); 0 for one sample */
    size_t outliers;  /* samples more than three sd from the mean */
} epcc_stats_t;

/* Statistics of samples[0..count-1] (count >= 1).  scratch holds count
 * doubles and is overwritten (the median sorts a copy); samples is left
 * as it is.  DSM_ERR_INVALID when count is 0 or a pointer is NULL. */
dsm_status_t epcc_stats_compute(const double *samples, size_t count,
                                double *scratch, epcc_stats_t *out);

#endif
