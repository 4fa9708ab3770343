/*
 * epcc_main.h - what the three benchmark programs share around the
 * measurements: option parsing with usage, delay calibration, the header
 * lines and the loop over the selected tests.
 *
 * Layer: bench (libc only).  Entry point: epcc_main_run.  Called from the
 * program's main thread; under MPI from every rank, printing only where
 * print is non-zero.
 */
#ifndef EPCC_MAIN_H
#define EPCC_MAIN_H

#include "epcc_measure.h"

typedef struct epcc_program {
    const char *benchmark;   /* "syncbench", ... */
    const char *runtime;     /* "dsmomp", "libomp", "mpich" */
    int workers;             /* threads in the team, or MPI processes */
    const char *const *names;
    size_t count;
    /* Fills tests[i] for name i once the delay is known. */
    void (*prepare)(size_t index, unsigned long delay_iterations,
                    epcc_test_t *test);
    epcc_agree_fn agree;
    int print;
} epcc_program_t;

/* Returns the process's exit status: 0, 2 for a bad command line, 1 when
 * a measurement failed. */
int epcc_main_run(const epcc_program_t *program, int argc, char *argv[]);

#endif
