/*
 * omp_reduction.c - reductions combined across threads and nodes: +, *,
 * -, max, min, && and || on int, long and double, &, | and ^ on int and
 * long; on loops and on a region, with and without nowait, repeated,
 * against the serial result.  Both runtime paths: variables whose sizes
 * dsmcc's plug-in passes (partial results sent to node 0) and array
 * sections of a VLA, or more variables or more reductions between two
 * barriers than that path takes (cluster lock).  A nowait reduction
 * followed by a wait on a flag that node 0's master sets after it: a
 * partial result a node keeps back for its join (no same-host lane) must
 * reach node 0 all the same, or the job hangs; so must one that node 0
 * asked for before the node made it (the last thread is slow to reach
 * the reduction).  The results are printed for the libomp cross-check.
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
        if (rep == 0)
            RESULT("arith %d %ld %.17g %ld %.17g %d %d %ld %ld %g %g", isum,
                   lsum, dsum, lprod, dprod, imax, imin, lmax, lmin, dmax,
                   dmin);
    }
}

/* The operand of iteration i for the bitwise operators. */
static long bits(int i) { return (value(i) * 2654435761L) ^ ((long)i << 33); }

/* -, && and || on every type; &, | and ^ on the integer types.  Each
 * logical reduction runs twice: once true at the end, once false. */
static void subtract_logical_bitwise(void)
{
    int s_isub = 0, s_iand = ~0, s_ior = 0, s_ixor = 0;
    long s_lsub = 0, s_land = ~0L, s_lor = 0, s_lxor = 0;
    double s_dsub = 0;
    for (int i = 0; i < N; i++) {
        s_isub -= (int)value(i);
        s_lsub -= value(i) * 1000003L;
        s_dsub -= (double)value(i) / 8;
        if (i % 50 == 0) {
            s_iand &= (int)~(1L << (i % 31));
            s_land &= ~(1L << (i % 63));
        }
        s_ior |= (int)(1L << ((i * 7) % 31)) & (i < 150 ? -1 : 0);
        s_lor |= (i < 300) ? 1L << ((i * 11) % 63) : 0;
        s_ixor ^= (int)bits(i);
        s_lxor ^= bits(i);
    }
    for (int rep = 0; rep < REPS / 4; rep++) {
        int isub = 0, iand = ~0, ior = 0, ixor = 0;
        long lsub = 0, land = ~0L, lor = 0, lxor = 0;
        double dsub = 0;
        int ilt = 1, ilf = 1, iot = 0, iof = 0;
        long llt = 1, llf = 1, lot = 0, lof = 0;
        double dlt = 1, dlf = 1, dot = 0, dof = 0;
#pragma omp parallel for schedule(dynamic, 13) reduction(- : isub, lsub, dsub) \
    reduction(& : iand, land) reduction(| : ior, lor)                       \
    reduction(^ : ixor, lxor) reduction(&& : ilt, ilf, llt, llf, dlt, dlf)   \
    reduction(|| : iot, iof, lot, lof, dot, dof)
        for (int i = 0; i < N; i++) {
            isub -= (int)value(i);
            lsub -= value(i) * 1000003L;
            dsub -= (double)value(i) / 8;
            if (i % 50 == 0) {
                iand &= (int)~(1L << (i % 31));
                land &= ~(1L << (i % 63));
            }
            ior |= (int)(1L << ((i * 7) % 31)) & (i < 150 ? -1 : 0);
            lor |= (i < 300) ? 1L << ((i * 11) % 63) : 0;
            ixor ^= (int)bits(i);
            lxor ^= bits(i);
            ilt = ilt && value(i) != 1000;
            ilf = ilf && i != N / 3;
            llt = llt && value(i) > -1000;
            llf = llf && value(i) != value(N - 1);
            dlt = dlt && (double)i < N;
            dlf = dlf && (double)i < N - 1;
            iot = iot || i == N - 2;
            iof = iof || value(i) > 1000;
            lot = lot || value(i) == value(7);
            lof = lof || i > N;
            dot = dot || (double)i * 0.5 == 3.0;
            dof = dof || (double)i < -1.0;
        }
        CHECK_EQ_LONG(isub, s_isub);
        CHECK_EQ_LONG(lsub, s_lsub);
        CHECK(dsub == s_dsub);
        CHECK_EQ_LONG(iand, s_iand);
        CHECK_EQ_LONG(land, s_land);
        CHECK_EQ_LONG(ior, s_ior);
        CHECK_EQ_LONG(lor, s_lor);
        CHECK_EQ_LONG(ixor, s_ixor);
        CHECK_EQ_LONG(lxor, s_lxor);
        CHECK(ilt == 1 && ilf == 0 && llt == 1 && llf == 0);
        CHECK(dlt == 1.0 && dlf == 0.0);
        CHECK(iot == 1 && iof == 0 && lot == 1 && lof == 0);
        CHECK(dot == 1.0 && dof == 0.0);
        if (rep == 0)
            RESULT("sub %d %ld %.17g bits %d %ld %d %ld %d %ld logic %d%d%ld"
                   "%ld%g%g %d%d%ld%ld%g%g", isub, lsub, dsub, iand, land,
                   ior, lor, ixor, lxor, ilt, ilf, llt, llf, dlt, dlf, iot,
                   iof, lot, lof, dot, dof);
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
    RESULT("region %ld %ld %g %ld", a, b, c, members);
}

/* A whole fixed-size array (sizes known), array sections of a VLA (sizes
 * unknown: the locked path), and more nowait reductions in a row than the
 * partials path takes between two barriers. */
static void arrays_and_runs(int n)
{
    int whole[4] = {0, 0, 0, 0};
    long vla[n];
    for (int i = 0; i < n; i++)
        vla[i] = 0;
#pragma omp parallel for reduction(+ : whole)
    for (int i = 0; i < N; i++)
        whole[i % 4] += i;
#pragma omp parallel for reduction(+ : vla[0:n])
    for (int i = 0; i < N; i++)
        vla[i % n] += 2 * i;
    long expect_whole[4] = {0, 0, 0, 0}, expect_vla[8] = {0};
    for (int i = 0; i < N; i++) {
        expect_whole[i % 4] += i;
        expect_vla[i % n] += 2 * i;
    }
    for (int k = 0; k < 4; k++)
        CHECK_EQ_LONG(whole[k], expect_whole[k]);
    for (int k = 0; k < n; k++)
        CHECK_EQ_LONG(vla[k], expect_vla[k]);

    enum { RUN = 10 };
    long total = 0;
#pragma omp parallel
    for (int r = 0; r < RUN; r++) {
#pragma omp for schedule(static) reduction(+ : total) nowait
        for (int i = 0; i < N; i++)
            total += i + r;
    }
    long expect_total = 0;
    for (int r = 0; r < RUN; r++)
        for (int i = 0; i < N; i++)
            expect_total += i + r;
    CHECK_EQ_LONG(total, expect_total);

    /* a team smaller than the job: nodes without members send nothing */
    int nth = omp_get_max_threads(), two = nth < 2 ? nth : 2;
    long small = 0;
#pragma omp parallel num_threads(two) reduction(+ : small)
    small += omp_get_thread_num() + 1;
    CHECK_EQ_LONG(small, (long)two * (two + 1) / 2);
    RESULT("arrays %d %d %ld total %ld", whole[0], whole[3], vla[n - 1],
           total);
}

/* After a nowait reduction the last thread of the team waits, with
 * flushes and no runtime construct, for a flag the master sets after the
 * reduction: the master's part of the reduction needs every node's
 * partial result first. */
static void reduction_then_flag(void)
{
    long sum = 0;
    int flag = 0;
#pragma omp parallel shared(flag)
    {
        int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
#pragma omp for schedule(static) reduction(+ : sum) nowait
        for (int i = 0; i < N; i++)
            sum += i;
        if (me == 0 && last > 0) {
#pragma omp atomic write
            flag = 1;
        }
        if (me == last && last > 0) {
            int seen = 0;
            while (!seen) {
#pragma omp atomic read
                seen = flag;
            }
        }
    }
    CHECK_EQ_LONG(sum, (long)N * (N - 1) / 2);
    RESULT("flag %ld", sum);
}

/* The same, but the last thread reaches the reduction late: node 0's
 * master has asked for the partial result (PULL, after 200 us) before the
 * last node made it. */
static void late_reduction_then_flag(void)
{
    long sum = 0;
    int flag = 0;
#pragma omp parallel shared(flag)
    {
        int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
        if (me == last) {
            double t0 = omp_get_wtime();
            while (omp_get_wtime() - t0 < 0.005)
                ;
        }
#pragma omp for schedule(static) reduction(+ : sum) nowait
        for (int i = 0; i < N; i++)
            sum += i;
        if (me == 0 && last > 0) {
#pragma omp atomic write
            flag = 1;
        }
        if (me == last && last > 0) {
            int seen = 0;
            while (!seen) {
#pragma omp atomic read
                seen = flag;
            }
        }
    }
    CHECK_EQ_LONG(sum, (long)N * (N - 1) / 2);
    RESULT("late flag %ld", sum);
}

int main(int argc, char **argv)
{
    (void)argv;
    loops();
    subtract_logical_bitwise();
    in_region();
    arrays_and_runs(argc + 4);
    reduction_then_flag();
    late_reduction_then_flag();
    return check_status("omp_reduction");
}
