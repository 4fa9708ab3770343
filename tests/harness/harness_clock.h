/*
 * harness_clock.h - deadlines for the harness's timed waits (internal).
 * Layer: tests.  Used by the harness's .c files only.
 */
#ifndef DSM_HARNESS_CLOCK_H
#define DSM_HARNESS_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t harness_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int64_t harness_deadline(int timeout_s)
{
    return harness_now_ms() + (int64_t)timeout_s * 1000;
}

/* Milliseconds left, for poll(2); 0 once the deadline has passed. */
static inline int harness_ms_left(int64_t deadline)
{
    int64_t left = deadline - harness_now_ms();
    return left > 0 ? (int)left : 0;
}

#endif
