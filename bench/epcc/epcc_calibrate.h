/*
 * epcc_calibrate.h - finds how many repetitions of something take a target
 * time: the delay loop's iteration count for a requested delay, and each
 * test's inner repetition count for the requested test time.
 *
 * Layer: bench (libc only).  Entry point: epcc_calibrate_count.  Calls the
 * caller's measuring function from the calling thread only.
 */
#ifndef EPCC_CALIBRATE_H
#define EPCC_CALIBRATE_H

#include "dsm.h"

/* Runs the measured thing count times; *seconds: how long that took. */
typedef dsm_status_t (*epcc_measure_fn)(void *ctx, unsigned long count,
                                        double *seconds);

/* Doubles count from 1 until a measurement takes at least a quarter of
 * target_s (or count reaches max_count), then scales the count linearly to
 * target_s.  *count_out is in 1..max_count.  DSM_ERR_INVALID for a target
 * that is not positive or a max_count of 0; a failing measurement's status
 * is returned as it is. */
dsm_status_t epcc_calibrate_count(epcc_measure_fn measure, void *ctx,
                                  double target_s, unsigned long max_count,
                                  unsigned long *count_out);

#endif
