/*
 * epcc_measure.c - the EPCC method (J. M. Bull, 1999) as a driver: inner
 * repetitions calibrated to the test time, outer repetitions of the
 * reference and of the test, overhead = test - reference per inner
 * repetition.  Also the rows every benchmark prints.
 *
 * The outer repetitions alternate, reference then test, and each test
 * repetition is compared with the reference run just before it (EPCC runs
 * every reference first and subtracts their mean).  This machine's speed
 * changes at the scale of milliseconds (the reference of a schedule test
 * took 13 us in one run and 22-24 us in the next); with the references
 * all first, a schedule test's overhead came out 10 us below zero
 * whenever the speed changed between the two phases.  A preempted
 * reference now spoils its own pair only, which the median ignores.
 *
 * Layer: bench (libc only).  Entry points: epcc_measure, epcc_overhead,
 * epcc_print_header, epcc_print_row.  Called from the main thread outside
 * parallel regions.
 */
#include <stdlib.h>

#include "epcc_calibrate.h"
#include "epcc_delay.h"
#include "epcc_measure.h"

/* Bounds a calibration whose test is far faster than the clock. */
#define MAX_INNER_REPS (1ul << 26)

typedef struct timed_body {
    epcc_body_fn body;
    void *ctx;
    epcc_agree_fn agree;
} timed_body_t;

static double time_body(const timed_body_t *t, unsigned long reps)
{
    double start = epcc_seconds();
    t->body(t->ctx, reps);
    double seconds = epcc_seconds() - start;
    return t->agree ? t->agree(seconds) : seconds;
}

static dsm_status_t measure_body(void *ctx, unsigned long reps,
                                 double *seconds)
{
    *seconds = time_body(ctx, reps);
    return DSM_OK;
}

/* Fills ref[i] and tst[i] with the time of one inner repetition of the
 * reference and of the test, run one after the other. */
static void run_outer(const timed_body_t *ref, const timed_body_t *tst,
                      unsigned outer, unsigned long reps, double *ref_s,
                      double *tst_s)
{
    ref->body(ref->ctx, 1);   /* warm-up: first-touch faults stay out */
    tst->body(tst->ctx, 1);
    for (unsigned i = 0; i < outer; i++) {
        ref_s[i] = time_body(ref, reps) / (double)reps;
        tst_s[i] = time_body(tst, reps) / (double)reps;
    }
}

dsm_status_t epcc_overhead(const double *ref_s, const double *tst_s,
                           unsigned outer, double *scratch, double *work,
                           epcc_result_t *r)
{
    epcc_stats_t ref_stats;
    dsm_status_t st = epcc_stats_compute(ref_s, outer, scratch, &ref_stats);
    if (st != DSM_OK)
        return st;
    for (unsigned i = 0; i < outer; i++)
        work[i] = (tst_s[i] - ref_s[i]) * 1e6;
    st = epcc_stats_compute(work, outer, scratch, &r->overhead);
    if (st == DSM_OK)
        r->reference_us = ref_stats.median * 1e6;
    return st;
}

dsm_status_t epcc_measure(const epcc_options_t *options,
                          const epcc_test_t *test, epcc_agree_fn agree,
                          epcc_result_t *out)
{
    if (!options || !test || !test->reference || !test->test || !out)
        return DSM_ERR_INVALID;

    timed_body_t ref = { test->reference, test->ctx, agree };
    timed_body_t tst = { test->test, test->ctx, agree };
    unsigned long reps;
    /* Calibrated on a cold first run (first-touch faults, a page's home
     * moving to its writer), ATOMIC across hosts got 3 repetitions instead
     * of 60, and a noisy figure. */
    tst.body(tst.ctx, 1);
    dsm_status_t st = epcc_calibrate_count(measure_body, &tst,
                                           options->test_time_us * 1e-6,
                                           MAX_INNER_REPS, &reps);
    if (st != DSM_OK)
        return st;

    unsigned outer = options->outer_reps;
    double *samples = malloc(4 * (size_t)outer * sizeof *samples);
    if (!samples)
        return DSM_ERR_NOMEM;
    double *ref_s = samples, *tst_s = samples + outer;
    double *scratch = samples + 2 * (size_t)outer;
    double *work = samples + 3 * (size_t)outer;
    epcc_result_t r = { .inner_reps = reps };
    run_outer(&ref, &tst, outer, reps, ref_s, tst_s);
    st = epcc_overhead(ref_s, tst_s, outer, scratch, work, &r);
    if (st == DSM_OK)
        *out = r;
    free(samples);
    return st;
}

void epcc_print_header(FILE *to)
{
    fprintf(to, "%-16s %10s %10s %10s %10s %10s %4s %10s %10s\n", "test",
            "mean_us", "median_us", "min_us", "max_us", "sd_us", "outl",
            "inner", "ref_us");
}

void epcc_print_row(FILE *to, const char *name, const epcc_result_t *r)
{
    fprintf(to, "%-16s %10.3f %10.3f %10.3f %10.3f %10.3f %4zu %10lu %10.3f\n",
            name, r->overhead.mean, r->overhead.median, r->overhead.min,
            r->overhead.max, r->overhead.sd, r->overhead.outliers,
            r->inner_reps, r->reference_us);
    fflush(to);
}
