/*
 * patterns.c - options, the timed loop and the result line of the
 * pattern kernels (see patterns.h).
 *
 * Application code; main thread (the master) only: the error paths exit.
 */
#include "patterns.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage_error(const char *kernel, const char *what,
                        const char *value)
{
    fprintf(stderr, "%s: %s: '%s' (usage: %s [-n SIZE] [-s STEPS] "
            "[-T SECONDS] [-w WARMUP])\n", kernel, what,
            value ? value : "", kernel);
    exit(PATTERNS_EXIT_USAGE);
}

static long parse_long(const char *kernel, const char *flag,
                       const char *text, long min, long max)
{
    if (text == NULL || *text < '0' || *text > '9')
        usage_error(kernel, flag, text);
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < min || value > max)
        usage_error(kernel, flag, text);
    return value;
}

void patterns_parse(int argc, char **argv, const char *kernel, long size,
                    long min_size, long max_size, long max_steps,
                    patterns_options_t *out)
{
    patterns_options_t o = {.kernel = kernel, .size = size,
                            .max_steps = max_steps, .budget = 0.0,
                            .warmup = 1};
    for (int i = 1; i < argc; i += 2) {
        const char *flag = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(flag, "-n") == 0) {
            char what[64];
            snprintf(what, sizeof what, "size -n must lie in [%ld, %ld]",
                     min_size, max_size);
            o.size = parse_long(kernel, what, value, min_size, max_size);
        } else if (strcmp(flag, "-s") == 0) {
            o.max_steps = parse_long(kernel, "steps -s must be positive",
                                     value, 1, 100000000);
        } else if (strcmp(flag, "-w") == 0) {
            o.warmup = parse_long(kernel, "warm-up -w must be >= 0", value,
                                  0, 1000000);
        } else if (strcmp(flag, "-T") == 0) {
            char *end = NULL;
            o.budget = value ? strtod(value, &end) : -1.0;
            if (value == NULL || end == value || *end != '\0' ||
                !(o.budget >= 0.0) || o.budget > 1e6)
                usage_error(kernel, "budget -T must be seconds >= 0", value);
        } else {
            usage_error(kernel, "unknown option", flag);
        }
    }
    *out = o;
}

double patterns_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long patterns_run(const patterns_options_t *o, patterns_step_fn step,
                  void *state, double *seconds)
{
    for (long s = 0; s < o->warmup; s++)
        step(state, s);
    patterns_stats_begin();
    double start = patterns_seconds();
    long done = 0;
    bool trace = getenv("PATTERNS_TRACE") != NULL;
    while (done < o->max_steps) {
        double before = trace ? patterns_seconds() : 0.0;
        step(state, o->warmup + done);
        if (trace)
            fprintf(stderr, "%s: step %ld %.6f s\n", o->kernel,
                    o->warmup + done, patterns_seconds() - before);
        done++;
        if (o->budget > 0.0 && patterns_seconds() - start >= o->budget)
            break;
    }
    *seconds = patterns_seconds() - start;
    patterns_stats_end(done);
    return done;
}

int patterns_report(const patterns_options_t *o, long steps, double seconds,
                    bool ok, double error)
{
    printf("result: kernel=%s n=%ld steps=%ld warmup=%ld seconds=%.6f "
           "per_step_us=%.3f check=%s error=%.3g\n", o->kernel, o->size,
           steps, o->warmup, seconds, 1e6 * seconds / (double)steps,
           ok ? "ok" : "WRONG", error);
    fflush(stdout);
    if (!ok)
        fprintf(stderr, "%s: wrong answer (error %.3g)\n", o->kernel, error);
    return ok ? PATTERNS_EXIT_OK : PATTERNS_EXIT_WRONG;
}

double patterns_max_difference(const double *a, const double *b, long n)
{
    double worst = 0.0;
    for (long i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (!(d <= worst))         /* also catches NaN */
            worst = isnan(d) ? INFINITY : d;
    }
    return worst;
}
