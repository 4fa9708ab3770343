/*
 * epcc_measure.h - one EPCC-style measurement: a reference body and a test
 * body (the same delay loop with the construct inside) run for the same
 * number of inner repetitions, several outer repetitions each, in turn;
 * the overhead per inner repetition is each test repetition's time minus
 * that of the reference repetition just before it, summarised over the
 * outer repetitions.  Printing of the results.
 *
 * Layer: bench (libc only).  Entry points: epcc_measure, epcc_overhead,
 * epcc_print_header, epcc_print_row.  Called from the benchmark's main
 * thread (outside any parallel region); under MPI from every rank alike.
 */
#ifndef EPCC_MEASURE_H
#define EPCC_MEASURE_H

#include <stdio.h>

#include "epcc_options.h"
#include "epcc_stats.h"

/* Runs reps inner repetitions. */
typedef void (*epcc_body_fn)(void *ctx, unsigned long reps);

/* Makes every process of an MPI job use the same figure (rank 0's, or the
 * largest); NULL where there is one process. */
typedef double (*epcc_agree_fn)(double seconds);

typedef struct epcc_test {
    const char *name;
    epcc_body_fn reference;
    epcc_body_fn test;
    void *ctx;
} epcc_test_t;

typedef struct epcc_result {
    unsigned long inner_reps;
    double reference_us;   /* median time of one reference inner repetition */
    epcc_stats_t overhead; /* per inner repetition, microseconds */
} epcc_result_t;

dsm_status_t epcc_measure(const epcc_options_t *options,
                          const epcc_test_t *test, epcc_agree_fn agree,
                          epcc_result_t *out);

/* The result of paired outer repetitions: ref_s[i] and tst_s[i] are the
 * seconds of one inner repetition of the reference and of the test in
 * round i; scratch and work hold outer doubles each.  Fills
 * r->reference_us (the reference's median) and r->overhead (of
 * tst_s[i] - ref_s[i], in microseconds); DSM_ERR_INVALID for outer 0. */
dsm_status_t epcc_overhead(const double *ref_s, const double *tst_s,
                           unsigned outer, double *scratch, double *work,
                           epcc_result_t *r);

void epcc_print_header(FILE *to);
void epcc_print_row(FILE *to, const char *name, const epcc_result_t *result);

#endif
