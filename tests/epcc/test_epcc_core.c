/*
 * test_epcc_core.c - unit tests of the EPCC method's own logic
 * (bench/epcc): statistics, count calibration against a fake clock, the
 * overhead of paired outer repetitions, and the command line.
 *
 * Layer: tests (links bench/epcc's epcc_core).  Entry point: main (cmocka
 * runner); single-threaded.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "epcc_calibrate.h"
#include "epcc_measure.h"
#include "epcc_options.h"
#include "epcc_stats.h"

/* Each test repetition is compared with its own reference: a machine
 * that ran at half speed for the last rounds (references and tests alike
 * twice as long) still gives the construct's cost, where subtracting the
 * references' median gives it only for the first rounds. */
static void overhead_pairs_each_round(void **state)
{
    (void)state;
    enum { OUTER = 5 };
    const double ref_s[OUTER] = {10e-6, 10e-6, 10e-6, 20e-6, 20e-6};
    const double tst_s[OUTER] = {11e-6, 11e-6, 11e-6, 21e-6, 21e-6};
    double scratch[OUTER], work[OUTER];
    epcc_result_t r = {0};
    assert_int_equal(epcc_overhead(ref_s, tst_s, OUTER, scratch, work, &r),
                     DSM_OK);
    assert_true(fabs(r.reference_us - 10.0) < 1e-9);
    assert_int_equal(r.overhead.count, OUTER);
    assert_true(fabs(r.overhead.median - 1.0) < 1e-9);
    assert_true(fabs(r.overhead.min - 1.0) < 1e-9);
    assert_true(fabs(r.overhead.max - 1.0) < 1e-9);
    assert_true(fabs(r.overhead.sd) < 1e-9);
    /* the inputs are left as they were */
    assert_true(ref_s[3] == 20e-6 && tst_s[4] == 21e-6);
}

/* One disturbed reference spoils its own pair only. */
static void overhead_one_slow_reference(void **state)
{
    (void)state;
    enum { OUTER = 5 };
    const double ref_s[OUTER] = {10e-6, 10e-6, 30e-6, 10e-6, 10e-6};
    const double tst_s[OUTER] = {12e-6, 12e-6, 12e-6, 12e-6, 12e-6};
    double scratch[OUTER], work[OUTER];
    epcc_result_t r = {0};
    assert_int_equal(epcc_overhead(ref_s, tst_s, OUTER, scratch, work, &r),
                     DSM_OK);
    assert_true(fabs(r.overhead.median - 2.0) < 1e-9);
    assert_true(fabs(r.overhead.min - (-18.0)) < 1e-9);
    assert_int_equal(epcc_overhead(ref_s, tst_s, 0, scratch, work, &r),
                     DSM_ERR_INVALID);
}

static void stats_of_odd_count(void **state)
{
    (void)state;
    const double samples[] = { 5.0, 1.0, 4.0, 2.0, 3.0 };
    double scratch[5];
    epcc_stats_t s;
    assert_int_equal(epcc_stats_compute(samples, 5, scratch, &s), DSM_OK);
    assert_int_equal(s.count, 5);
    assert_true(s.mean == 3.0);
    assert_true(s.median == 3.0);
    assert_true(s.min == 1.0);
    assert_true(s.max == 5.0);
    assert_true(fabs(s.sd - sqrt(2.5)) < 1e-12);
    assert_int_equal(s.outliers, 0);
    assert_true(samples[0] == 5.0);   /* input left unsorted */
}

static void stats_median_of_even_count(void **state)
{
    (void)state;
    const double samples[] = { 10.0, -2.0, 7.0, 1.0 };
    double scratch[4];
    epcc_stats_t s;
    assert_int_equal(epcc_stats_compute(samples, 4, scratch, &s), DSM_OK);
    assert_true(s.median == 4.0);
    assert_true(s.min == -2.0);
    assert_true(s.max == 10.0);
    assert_true(s.mean == 4.0);
}

static void stats_single_sample_and_outlier(void **state)
{
    (void)state;
    const double one[] = { 42.0 };
    double scratch[20];
    epcc_stats_t s;
    assert_int_equal(epcc_stats_compute(one, 1, scratch, &s), DSM_OK);
    assert_true(s.sd == 0.0);
    assert_true(s.median == 42.0);
    assert_int_equal(s.outliers, 0);

    /* Nineteen equal samples and one far off: only it lies beyond 3 sd. */
    double many[20];
    for (int i = 0; i < 19; i++)
        many[i] = 1.0;
    many[19] = 100.0;
    assert_int_equal(epcc_stats_compute(many, 20, scratch, &s), DSM_OK);
    assert_int_equal(s.outliers, 1);
    assert_true(s.median == 1.0);
}

static void stats_rejects_empty(void **state)
{
    (void)state;
    double x = 1.0, scratch[1];
    epcc_stats_t s = { .count = 99 };
    assert_int_equal(epcc_stats_compute(&x, 0, scratch, &s), DSM_ERR_INVALID);
    assert_int_equal(epcc_stats_compute(NULL, 1, scratch, &s),
                     DSM_ERR_INVALID);
    assert_int_equal(s.count, 99);
}

/* A fake clock: count repetitions take fixed + count * per_count seconds. */
typedef struct fake_clock {
    double fixed;
    double per_count;
    unsigned calls;
    unsigned long largest;
} fake_clock_t;

static dsm_status_t fake_measure(void *ctx, unsigned long count,
                                 double *seconds)
{
    fake_clock_t *c = ctx;
    c->calls++;
    if (count > c->largest)
        c->largest = count;
    *seconds = c->fixed + (double)count * c->per_count;
    return DSM_OK;
}

static void calibrate_linear_cost(void **state)
{
    (void)state;
    fake_clock_t c = { .per_count = 1e-6 };
    unsigned long count = 0;
    assert_int_equal(epcc_calibrate_count(fake_measure, &c, 1e-3, 1ul << 30,
                                          &count), DSM_OK);
    assert_in_range(count, 995, 1005);
    /* It stopped doubling once a quarter of the target was reached. */
    assert_in_range(c.largest, 250, 512);
}

static void calibrate_slow_body_needs_one(void **state)
{
    (void)state;
    fake_clock_t c = { .per_count = 5e-3 };   /* one rep > target */
    unsigned long count = 0;
    assert_int_equal(epcc_calibrate_count(fake_measure, &c, 1e-3, 1000,
                                          &count), DSM_OK);
    assert_int_equal(count, 1);
    assert_int_equal(c.calls, 1);
}

static void calibrate_free_body_stops_at_max(void **state)
{
    (void)state;
    fake_clock_t c = { .per_count = 0.0 };
    unsigned long count = 0;
    assert_int_equal(epcc_calibrate_count(fake_measure, &c, 1e-3, 1000,
                                          &count), DSM_OK);
    assert_int_equal(count, 1000);
    assert_int_equal(c.largest, 1000);
}

static void calibrate_rejects_bad_target(void **state)
{
    (void)state;
    fake_clock_t c = { .per_count = 1e-6 };
    unsigned long count = 7;
    assert_int_equal(epcc_calibrate_count(fake_measure, &c, 0.0, 10, &count),
                     DSM_ERR_INVALID);
    assert_int_equal(epcc_calibrate_count(fake_measure, &c, 1e-3, 0, &count),
                     DSM_ERR_INVALID);
    assert_int_equal(count, 7);
}

static const char *const names[] = { "PARALLEL", "BARRIER", "PARALLEL_FOR" };

static dsm_status_t parse(int argc, char *const argv[], epcc_options_t *o)
{
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    dsm_status_t st = epcc_options_parse(argc, argv, names, 3, sink, o);
    fclose(sink);
    return st;
}

static void options_defaults_and_values(void **state)
{
    (void)state;
    epcc_options_t o;
    char *none[] = { "bench" };
    assert_int_equal(parse(1, none, &o), DSM_OK);
    assert_int_equal(o.outer_reps, 20);
    assert_true(o.test_time_us == 1000.0);
    assert_true(o.delay_us == 0.1);
    for (size_t i = 0; i < 3; i++)
        assert_true(epcc_options_selected(&o, i));

    char *some[] = { "bench", "-r", "5", "-t", "250", "-d", "0.5",
                     "-c", "barrier,Parallel_For" };
    assert_int_equal(parse(9, some, &o), DSM_OK);
    assert_int_equal(o.outer_reps, 5);
    assert_true(o.test_time_us == 250.0);
    assert_true(o.delay_us == 0.5);
    assert_false(epcc_options_selected(&o, 0));
    assert_true(epcc_options_selected(&o, 1));
    assert_true(epcc_options_selected(&o, 2));
}

static void options_reject_bad_input(void **state)
{
    (void)state;
    epcc_options_t o = { .outer_reps = 77 };
    char *unknown_test[] = { "bench", "-c", "PARALLEL,NOPE" };
    char *prefix_only[] = { "bench", "-c", "PARALLEL_" };
    char *zero_reps[] = { "bench", "-r", "0" };
    char *fraction_reps[] = { "bench", "-r", "2.5" };
    char *missing[] = { "bench", "-t" };
    char *unknown_opt[] = { "bench", "-x", "1" };
    char *negative_delay[] = { "bench", "-d", "-1" };
    assert_int_equal(parse(3, unknown_test, &o), DSM_ERR_INVALID);
    assert_int_equal(parse(3, prefix_only, &o), DSM_ERR_INVALID);
    assert_int_equal(parse(3, zero_reps, &o), DSM_ERR_INVALID);
    assert_int_equal(parse(3, fraction_reps, &o), DSM_ERR_INVALID);
    assert_int_equal(parse(2, missing, &o), DSM_ERR_INVALID);
    assert_int_equal(parse(3, unknown_opt, &o), DSM_ERR_INVALID);
    assert_int_equal(parse(3, negative_delay, &o), DSM_ERR_INVALID);
    assert_int_equal(o.outer_reps, 77);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stats_of_odd_count),
        cmocka_unit_test(overhead_pairs_each_round),
        cmocka_unit_test(overhead_one_slow_reference),
        cmocka_unit_test(stats_median_of_even_count),
        cmocka_unit_test(stats_single_sample_and_outlier),
        cmocka_unit_test(stats_rejects_empty),
        cmocka_unit_test(calibrate_linear_cost),
        cmocka_unit_test(calibrate_slow_body_needs_one),
        cmocka_unit_test(calibrate_free_body_stops_at_max),
        cmocka_unit_test(calibrate_rejects_bad_target),
        cmocka_unit_test(options_defaults_and_values),
        cmocka_unit_test(options_reject_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
