/*
 * epcc_delay.c - the busy delay of the EPCC method and its calibration.
 *
 * Layer: bench (libc only).  Entry points: epcc_delay, epcc_delay_calibrate,
 * epcc_seconds.  epcc_delay runs in any thread and touches no memory, so
 * under dsmomp it never faults on a sharable page.
 */
#include <time.h>

#include "epcc_calibrate.h"
#include "epcc_delay.h"

/* Each measurement averages this many calls, so a short delay is timed
 * well above the clock's own cost, and keeps the fastest of a few tries:
 * on a shared machine a preempted try would shorten the delay. */
#define CALLS_PER_MEASUREMENT 1000
#define TRIES 5

void epcc_delay(unsigned long iterations)
{
    unsigned long acc = 0;
    for (unsigned long i = 0; i < iterations; i++) {
        acc += i;
        /* Keeps the loop: the compiler cannot see through it. */
        __asm__ volatile("" : "+r"(acc));
    }
}

double epcc_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static dsm_status_t measure_delay(void *ctx, unsigned long iterations,
                                  double *seconds)
{
    (void)ctx;
    double best = 0.0;
    for (int t = 0; t < TRIES; t++) {
        double start = epcc_seconds();
        for (int i = 0; i < CALLS_PER_MEASUREMENT; i++)
            epcc_delay(iterations);
        double took = (epcc_seconds() - start) / CALLS_PER_MEASUREMENT;
        if (t == 0 || took < best)
            best = took;
    }
    *seconds = best;
    return DSM_OK;
}

dsm_status_t epcc_delay_calibrate(double delay_us, unsigned long *iterations)
{
    if (!(delay_us >= 0.0) || !iterations)
        return DSM_ERR_INVALID;
    if (delay_us == 0.0) {
        *iterations = 1;
        return DSM_OK;
    }
    return epcc_calibrate_count(measure_delay, NULL, delay_us * 1e-6,
                                1ul << 40, iterations);
}
