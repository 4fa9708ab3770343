/*
 * epcc_calibrate.c - repetition counts that fill a target time.
 *
 * Layer: bench (libc only).  Entry point: epcc_calibrate_count.  Runs the
 * caller's measurement in the calling thread; no global state.
 */
#include <math.h>

#include "epcc_calibrate.h"

dsm_status_t epcc_calibrate_count(epcc_measure_fn measure, void *ctx,
                                  double target_s, unsigned long max_count,
                                  unsigned long *count_out)
{
    if (!measure || !count_out || !(target_s > 0.0) || max_count == 0)
        return DSM_ERR_INVALID;

    unsigned long count = 1;
    double seconds = 0.0;
    for (;;) {
        dsm_status_t st = measure(ctx, count, &seconds);
        if (st != DSM_OK)
            return st;
        /* A quarter of the target is long enough for the clock to be
         * accurate and short enough that calibration costs little. */
        if (seconds >= target_s / 4.0 || count >= max_count)
            break;
        count = count > max_count / 2 ? max_count : count * 2;
    }

    double scaled = seconds > 0.0 ? ceil((double)count * target_s / seconds)
                                  : (double)max_count;
    if (scaled > (double)max_count)
        scaled = (double)max_count;
    if (scaled < 1.0)
        scaled = 1.0;
    *count_out = (unsigned long)scaled;
    return DSM_OK;
}
