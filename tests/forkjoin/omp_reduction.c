/*
 * omp_reduction.c - reductions combined across threads and nodes: +, *,
 * max and min on int, long and double, on loops and on a region, with and
 * without nowait, repeated, against the serial result.
 *
 * Test program (dsmcc, dsmrun).  Exit status 0 when everything matched.
 */
#include <limits.h>
#include <omp.h>

#include "omp_check.h"

#define N 2000
#define REPS 20

static long value(int i) { return (i * 7919L) % 1013 - 500; }

static void loops(void)
{
    long s_isum = 0, s_lsum = 0, s_lprod = 1;
    double s_dsum = 0, s_dprod = 1, s_dmax = -1e300, s_dmin = 1e300;
    int s_imax = INT_MIN, s_imin = INT_MAX;
    long s_lmax = LONG_MIN, s_lmin = LONG_MAX;
    for (int i = 0; i < N; i++) {
        long v = value(i);
        s_isum += v;
        s_lsum += v * 1000003L;
        s_dsum += (double)v;
        if (i % 97 == 0) {
            s_lprod *= 2;
            s_dprod *= 0.5;
        }
        s_imax = v > s_imax ? (int)v : s_imax;
        s_imin = v < s_imin ? (int)v : s_imin;
        s_lmax = v * 3 > s_lmax ? v * 3 : s_lmax;
        s_lmin = v * 3 < s_lmin ? v * 3 : s_lmin;
        s_dmax = (double)v / 4 > s_dmax ? (double)v / 4 : s_dmax;
        s_dmin = (double)v / 4 < s_dmin ? (double)v / 4 : s_dmin;
    }
    for (int rep = 0; rep < REPS; rep++) {
        int isum = 0, imax = INT_MIN, imin = INT_MAX;
        long lsum = 0, lprod = 1, lmax = LONG_MIN, lmin = LONG_MAX;
        double dsum = 0, dprod = 1, dmax = -1e300, dmin = 1e300;
#pragma omp parallel for schedule(static) reduction(+ : isum, lsum, dsum)   \
    reduction(* : lprod, dprod) reduction(max : imax, lmax, dmax)            \
    reduction(min : imin, lmin, dmin)
        for (int i = 0; i < N; i++) {
            long v = value(i);
            isum += (int)v;
            lsum += v * 1000003L;
            dsum += (double)v;
            if (i % 97 == 0) {
                lprod *= 2;
                dprod *= 0.5;
            }
            imax = v > imax ? (int)v : imax;
            imin = v < imin ? (int)v : imin;
            lmax = v * 3 > lmax ? v * 3 : lmax;
            lmin = v * 3 < lmin ? v * 3 : lmin;
            dmax = (double)v / 4 > dmax ? (double)v / 4 : dmax;
            dmin = (double)v / 4 < dmin ? (double)v / 4 : dmin;
        }
        CHECK_EQ_LONG(isum, s_isum);
        CHECK_EQ_LONG(lsum, s_lsum);
        CHECK(dsum == s_dsum);
        CHECK_EQ_LONG(lprod, s_lprod);
        CHECK(dprod == s_dprod);
        CHECK_EQ_LONG(imax, s_imax);
        CHECK_EQ_LONG(imin, s_imin);
        CHECK_EQ_LONG(lmax, s_lmax);
        CHECK_EQ_LONG(lmin, s_lmin);
        CHECK(dmax == s_dmax);
        CHECK(dmin == s_dmin);
    }
}

/* Inside one region: a nowait reduction, then a blocking one, then one
 * over the region itself. */
static void in_region(void)
{
    int nth = omp_get_max_threads();
    long a = 0, b = 0, members = 0;
    double c = 1;
#pragma omp parallel reduction(+ : members)
    {
#pragma omp for schedule(dynamic, 16) reduction(+ : a) nowait
        for (int i = 0; i < N; i++)
            a += i;
#pragma omp for schedule(guided) reduction(+ : b) reduction(* : c)
        for (int i = 0; i < N; i++) {
            b += 2 * i;
            if (i < 10)
                c *= 2;
        }
        /* the blocking reduction's result is visible after its barrier */
        CHECK_EQ_LONG(b, (long)N * (N - 1));
        members += 1;
    }
    CHECK_EQ_LONG(a, (long)N * (N - 1) / 2);
    CHECK(c == 1024.0);
    CHECK_EQ_LONG(members, nth);
}

int main(void)
{
    loops();
    in_region();
    return check_status("omp_reduction");
}
