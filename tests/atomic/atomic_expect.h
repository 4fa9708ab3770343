/*
 * atomic_expect.h - result checks of the atomic suite's test programs.
 * Each program computes with atomics, then node 0's serial code compares
 * the results with what they must be and exits non-zero after naming every
 * difference.  Serial code only: the checks themselves use no atomics, so
 * they do not depend on what is being tested.
 *
 * Layer: tests (programs compiled by dsmcc; run directly or under dsmrun).
 */
#ifndef ATOMIC_EXPECT_H
#define ATOMIC_EXPECT_H

#include <stdio.h>

static int expect_failures;

static inline void expect_long(const char *what, long got, long want)
{
    if (got != want) {
        fprintf(stderr, "%s is %ld, expected %ld\n", what, got, want);
        expect_failures++;
    }
}

/* Exact: the tests only add values whose sums are representable. */
static inline void expect_double(const char *what, double got, double want)
{
    if (got != want) {
        fprintf(stderr, "%s is %.17g, expected %.17g\n", what, got, want);
        expect_failures++;
    }
}

static inline void expect_true(const char *what, int cond)
{
    if (!cond) {
        fprintf(stderr, "%s does not hold\n", what);
        expect_failures++;
    }
}

/* The program's exit status. */
static inline int expect_status(const char *program)
{
    if (expect_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", program, expect_failures);
    else
        printf("%s: all checks passed\n", program);
    return expect_failures ? 1 : 0;
}

#endif
