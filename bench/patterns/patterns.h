/*
 * patterns.h - the measuring harness shared by the pattern kernels
 * (bench/patterns: ADI, FFT with transposes, multigrid, CG, wavefront,
 * tiny regions, reductions in a long region, embarrassingly parallel):
 * options, the timed loop of steps, the DSM statistics of the timed steps
 * and the one result line every kernel prints.
 *
 * The kernels themselves are ordinary OpenMP C; only this harness knows
 * about dsmomp (patterns_stats.c, built with -DPATTERNS_DSM by dsmcc).
 * patterns.c itself uses no OpenMP, so the MPI versions share it.
 * Application code; main thread (the master) only.
 */
#ifndef PATTERNS_H
#define PATTERNS_H

#include <stdbool.h>

/* Exit statuses: right answer, wrong answer, bad input. */
#define PATTERNS_EXIT_OK 0
#define PATTERNS_EXIT_WRONG 1
#define PATTERNS_EXIT_USAGE 2

typedef struct patterns_options {
    const char *kernel;   /* name in the result line */
    long size;            /* -n: the kernel's problem size */
    long max_steps;       /* -s: timed steps at most */
    double budget;        /* -T: stop after the step that passes this many
                             seconds (0: run max_steps) */
    long warmup;          /* -w: untimed steps first */
} patterns_options_t;

/* One step of a kernel: STEP counts from 0 over warm-up and timed steps. */
typedef void (*patterns_step_fn)(void *state, long step);

/* Parses "-n SIZE -s STEPS -T SECONDS -w WARMUP" into *OUT, starting from
 * the defaults given; SIZE must lie in [MIN_SIZE, MAX_SIZE].  Bad input
 * prints one line and exits PATTERNS_EXIT_USAGE. */
void patterns_parse(int argc, char **argv, const char *kernel, long size,
                    long min_size, long max_size, long max_steps,
                    patterns_options_t *out);

/* Runs the warm-up steps, then timed steps (with the DSM statistics of
 * exactly those taken, when built for dsmomp) until max_steps or the
 * budget.  Returns the number of timed steps; *SECONDS their time.
 * With PATTERNS_TRACE set, each timed step's time goes to stderr. */
long patterns_run(const patterns_options_t *o, patterns_step_fn step,
                  void *state, double *seconds);

/* Prints "result: kernel=K n=N steps=S seconds=T per_step_us=U check=ok
 * error=E" (check=WRONG when !OK) and returns the exit status. */
int patterns_report(const patterns_options_t *o, long steps, double seconds,
                    bool ok, double error);

/* Seconds on a monotonic clock. */
double patterns_seconds(void);

/* Largest |a[i] - b[i]| over N values. */
double patterns_max_difference(const double *a, const double *b, long n);

/* The DSM statistics of the timed steps (patterns_stats.c): begin takes
 * every node's counters, end takes them again and prints the difference
 * as one "stats: {json}" line.  Without PATTERNS_DSM they do nothing. */
void patterns_stats_begin(void);
void patterns_stats_end(long steps);

#endif
