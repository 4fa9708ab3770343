/*
 * epcc_delay.h - the calibrated busy delay every EPCC-style test wraps its
 * construct around, and the wall clock the benchmarks read.
 *
 * Layer: bench (libc only).  Entry points: epcc_delay (any thread, also
 * inside parallel regions: touches no memory), epcc_delay_calibrate (one
 * thread, before the tests), epcc_seconds (any thread).
 */
#ifndef EPCC_DELAY_H
#define EPCC_DELAY_H

#include "dsm.h"

/* Spins for iterations rounds of a register-only loop. */
void epcc_delay(unsigned long iterations);

/* The iteration count for which epcc_delay lasts delay_us microseconds
 * (at least 1).  DSM_ERR_INVALID for a negative delay. */
dsm_status_t epcc_delay_calibrate(double delay_us, unsigned long *iterations);

/* A monotonic clock in seconds. */
double epcc_seconds(void);

#endif
