/*
 * epcc_measure.c - the EPCC method (J. M. Bull, 1999) as a driver: inner
 * repetitions calibrated to the test time, outer repetitions of the
 * reference and of the test, overhead = test - reference per inner
 * repetition.  The reference's median is subtracted (EPCC takes its mean):
 * on a shared machine one preempted reference run would otherwise shift
 * every overhead.  Also the rows every benchmark prints.
 *
 * Layer: bench (libc only).  Entry points: epcc_measure, epcc_print_header,
 * epcc_print_row.  Called from the main thread outside parallel regions.
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

/* Fills per_rep[0..outer-1] with the time of one inner repetition. */
static void run_outer(const timed_body_t *t, unsigned outer,
                      unsigned long reps, double *per_rep)
{
    t->body(t->ctx, 1);   /* warm-up: first-touch faults stay out */
    for (unsigned i = 0; i < outer; i++)
        per_rep[i] = time_body(t, reps) / (double)reps;
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
    double *samples = malloc(2 * outer * sizeof *samples);
    if (!samples)
        return DSM_ERR_NOMEM;
    double *scratch = samples + outer;
    epcc_stats_t ref_stats;
    epcc_result_t r = { .inner_reps = reps };

    run_outer(&ref, outer, reps, samples);
    st = epcc_stats_compute(samples, outer, scratch, &ref_stats);
    if (st != DSM_OK)
        goto free_samples;
    r.reference_us = ref_stats.median * 1e6;

    run_outer(&tst, outer, reps, samples);
    for (unsigned i = 0; i < outer; i++)
        samples[i] = (samples[i] - ref_stats.median) * 1e6;
    st = epcc_stats_compute(samples, outer, scratch, &r.overhead);
    if (st == DSM_OK)
        *out = r;
free_samples:
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
