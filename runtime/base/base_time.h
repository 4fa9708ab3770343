/*
 * base_time.h - monotonic clock helpers.
 * Layer: base.  Async-signal-safe (clock_gettime is).
 */
#ifndef BASE_TIME_H
#define BASE_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t dsm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
