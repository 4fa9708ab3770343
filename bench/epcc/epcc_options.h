/*
 * epcc_options.h - the command line every EPCC-style benchmark of this
 * folder accepts: outer repetitions, test time, delay, and which tests run.
 *
 * Layer: bench (libc only).  Entry points: epcc_options_parse,
 * epcc_options_usage, epcc_options_selected.  Called from main (one
 * thread); no global state.
 *
 *   -r N       outer repetitions (default 20)
 *   -t US      target time of one outer repetition of a test, microseconds
 *              (default 1000)
 *   -d US      length of the delay inside each inner repetition,
 *              microseconds (default 0.1)
 *   -c A,B,..  run only the named tests (case-insensitive; default all)
 */
#ifndef EPCC_OPTIONS_H
#define EPCC_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "dsm.h"

#define EPCC_MAX_TESTS 32

typedef struct epcc_options {
    unsigned outer_reps;
    double test_time_us;
    double delay_us;
    unsigned long selected;   /* bit i: names[i] runs */
} epcc_options_t;

/* Parses argv[1..argc-1] against the benchmark's test names (at most
 * EPCC_MAX_TESTS).  DSM_ERR_INVALID, with a message on err, for an
 * unknown option or test name or a value out of range; *out is then left
 * as it was. */
dsm_status_t epcc_options_parse(int argc, char *const argv[],
                                const char *const names[], size_t count,
                                FILE *err, epcc_options_t *out);

void epcc_options_usage(FILE *to, const char *program,
                        const char *const names[], size_t count);

int epcc_options_selected(const epcc_options_t *options, size_t index);

#endif
