/*
 * omp_ordered.c - ordered sections run in iteration order, whatever the
 * schedule and wherever the iterations run; iterations that skip the
 * section do not hold the others back.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <omp.h>

#include "omp_check.h"

#define N 120

static long order[N];
static long next;

static void expect_in_order(const char *schedule, int step)
{
    long want = 0;
    for (int i = 0; i < N; i += step)
        want++;
    unsigned long hash = 0;
    for (long k = 0; k < next && k < N; k++)
        hash = hash * 31 + (unsigned long)order[k];
    RESULT("%s: %ld sections, order %lx", schedule, next, hash);
    if (next != want) {
        fprintf(stderr, "%s: %ld ordered sections ran, expected %ld\n",
                schedule, next, want);
        check_failures++;
        return;
    }
    for (long k = 0; k < next; k++)
        if (order[k] != k * step) {
            fprintf(stderr, "%s: section %ld was iteration %ld, expected "
                    "%ld\n", schedule, k, order[k], k * step);
            check_failures++;
            return;
        }
}

#define PRAGMA(...) _Pragma(#__VA_ARGS__)

#define ORDERED_LOOP(NAME, STEP, ...)                                         \
    do {                                                                      \
        next = 0;                                                             \
        PRAGMA(omp parallel for ordered __VA_ARGS__)                          \
        for (int i = 0; i < N; i++) {                                         \
            if (i % (STEP) == 0) {                                            \
                PRAGMA(omp ordered)                                           \
                order[next++] = i;                                            \
            }                                                                 \
        }                                                                     \
        expect_in_order(NAME, STEP);                                          \
    } while (0)

int main(void)
{
    ORDERED_LOOP("static", 1, schedule(static));
    ORDERED_LOOP("static,3", 1, schedule(static, 3));
    ORDERED_LOOP("dynamic", 1, schedule(dynamic));
    ORDERED_LOOP("dynamic,4", 1, schedule(dynamic, 4));
    ORDERED_LOOP("guided", 1, schedule(guided));
    ORDERED_LOOP("dynamic,2 every 3rd", 3, schedule(dynamic, 2));
    ORDERED_LOOP("static,5 every 7th", 7, schedule(static, 5));
    return check_status("omp_ordered");
}
