/*
 * omp_check.h - the checking helpers of the fork-join test programs: each
 * program compares what its OpenMP constructs computed with a serial
 * computation and exits non-zero (after saying what differed) when wrong.
 *
 * Layer: tests (OpenMP programs compiled by dsmcc, run under dsmrun).
 * CHECK may be used in serial code and, for per-thread facts, inside
 * parallel regions (the failure count is updated under a critical).
 *
 * RESULT prints a result line on stdout, in serial code only.  The libomp
 * cross-check (compare-libomp.sh) runs the same source built by dsmcc and
 * by plain clang -fopenmp with the same team size and diffs these lines,
 * so they may depend on the team size but never on timing.
 */
#ifndef OMP_CHECK_H
#define OMP_CHECK_H

#include <stdio.h>

static long check_failures;   /* a long: see omp_schedule.c */

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond)) {                                                        \
            _Pragma("omp critical(check_failures)")                           \
            check_failures++;                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                   \
        }                                                                     \
    } while (0)

#define CHECK_EQ_LONG(got, want)                                              \
    do {                                                                      \
        long got_ = (long)(got), want_ = (long)(want);                        \
        if (got_ != want_) {                                                  \
            _Pragma("omp critical(check_failures)")                           \
            check_failures++;                                                 \
            fprintf(stderr, "%s:%d: %s is %ld, expected %ld\n", __FILE__,    \
                    __LINE__, #got, got_, want_);                             \
        }                                                                     \
    } while (0)

#define RESULT(...)                                                           \
    do {                                                                      \
        fputs("result: ", stdout);                                            \
        printf(__VA_ARGS__);                                                  \
        putchar('\n');                                                        \
    } while (0)

/* The exit status of a test program. */
static inline int check_status(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %ld check(s) failed\n", name, check_failures);
    return check_failures ? 1 : 0;
}

#endif
