/*
 * omp_flush_relay.c - what a flush must acquire when other nodes publish
 * intervals while it reads their logs (coherence/coh_acquire.c):
 *   relay     a token goes round the threads, each waiting (flush in the
 *             loop) only for the one before it; between hand-offs every
 *             thread closes a few extra intervals (noise), so the stamps
 *             and headers a flush reads change under it.  Each thread
 *             checks the blocks of every other thread: those before it in
 *             this round arrive only through its predecessor's stamps
 *             (transitively, across 3 nodes), those after it from the
 *             round before.  A torn read of a stamp row, a head taken
 *             ahead of its dependences or a missed interval shows as a
 *             stale block (or a hang, meson's timeout);
 *   behind    thread 0 closes more intervals than a log's ring of headers
 *             holds while the last thread waits without acquiring (a
 *             relaxed atomic read acquires only once it sees a new
 *             value); its acquire then finds its vector time too far
 *             behind thread 0's log and must still see the last values;
 *   far       a flush reads the last 16 headers and 32 ranges of a log
 *             with its stamps (the near rings): thread 0 publishes more
 *             intervals than that between hand-offs, or one interval of
 *             more ranges (every other page of an array), and every
 *             other thread, waiting on an atomic read that acquires once
 *             the token changes, must read what the near rings no longer
 *             hold from the big ones.
 *
 * Test program (dsmcc, dsmrun; also runs under libomp).  Exit status 0
 * when every check held.  Usage: omp_flush_relay [rounds [behind]].
 */
#include <omp.h>
#include <stdlib.h>

#include "omp_check.h"

#define MAX_THREADS 64
#define BLOCK 1100         /* doubles: a little over 2 pages */
#define NOISE 3            /* extra intervals per hand-off */

static double blocks[MAX_THREADS][BLOCK];
static double noise[MAX_THREADS][512];
static int token[MAX_THREADS];
static long stale;

static double value(int round, int t, int i)
{
    return round * 100000.0 + t * 1000.0 + i;
}

/* Thread t's block holds round r's values (round 0: never written). */
static int block_is(int t, int r)
{
    for (int i = 0; i < BLOCK; i += 97)
        if (blocks[t][i] != (r ? value(r, t, i) : 0.0))
            return 0;
    return blocks[t][BLOCK - 1] == (r ? value(r, t, BLOCK - 1) : 0.0);
}

static long relay(int me, int nth, int rounds)
{
    long wrong = 0;
    int prev = (me + nth - 1) % nth;
    for (int r = 1; r <= rounds; r++) {
        int want = me == 0 ? r - 1 : r, seen = -1;
        while (seen < want) {
#pragma omp flush
            seen = token[prev];
        }
#pragma omp flush
        for (int t = 0; t < nth; t++)
            if (t != me && !block_is(t, t < me ? r : r - 1))
                wrong++;
        for (int k = 0; k < NOISE; k++) {
            noise[me][k * 64] = r + k;
#pragma omp flush
        }
        for (int i = 0; i < BLOCK; i++)
            blocks[me][i] = value(r, me, i);
#pragma omp flush
        token[me] = r;
#pragma omp flush
    }
    return wrong;
}

static double x[1024];
static int behind_flag;

static long behind(int me, int nth, int intervals)
{
    long wrong = 0;
    if (me == 0) {
        for (int k = 1; k <= intervals; k++) {
            x[0] = k;
            x[600] = -k;
#pragma omp flush
        }
#pragma omp atomic write
        behind_flag = 1;
    } else if (me == nth - 1) {
        int seen = 0;
        while (!seen) {
#pragma omp atomic read
            seen = behind_flag;
        }
#pragma omp flush
        wrong += x[0] != intervals || x[600] != -intervals;
    }
    return wrong;
}

#define FAR_PAGES 80        /* every other one written: 40 ranges */
static double far_pages[FAR_PAGES][512];
static double far_x[64];
static int far_token;

static long far(int me)
{
    long wrong = 0;
    for (int r = 1; r <= 6; r++) {
        if (me == 0) {
            if (r % 2) {
                for (int k = 1; k <= 40; k++) {    /* > 16 intervals */
                    far_x[k % 64] = r * 100 + k;
#pragma omp flush
                }
            } else {
                for (int p = 0; p < FAR_PAGES; p += 2)   /* > 32 ranges */
                    far_pages[p][p] = r * 1000 + p;
            }
#pragma omp atomic write
            far_token = r;
        } else {
            /* no acquire until the token changes: then one, far behind */
            int seen = 0;
            while (seen < r) {
#pragma omp atomic read
                seen = far_token;
            }
#pragma omp flush
            if (r % 2)
                for (int k = 1; k <= 40; k++)
                    wrong += far_x[k % 64] != r * 100 + k;
            else
                for (int p = 0; p < FAR_PAGES; p += 2)
                    wrong += far_pages[p][p] != r * 1000 + p;
        }
#pragma omp barrier
    }
    return wrong;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 60;
    int intervals = argc > 2 ? atoi(argv[2]) : 17000;
    int nth = 0;
#pragma omp parallel
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp single
        nth = n;
        long w = n > 1 ? relay(me, n, rounds) : 0;
#pragma omp barrier
        w += n > 1 ? far(me) : 0;
        if (n > 1 && intervals > 0)
            w += behind(me, n, intervals);
#pragma omp atomic
        stale += w;
    }
    CHECK(nth <= MAX_THREADS);
    CHECK_EQ_LONG(stale, 0);
    RESULT("relay rounds=%d threads=%d", rounds, nth);
    return check_status("omp_flush_relay");
}
