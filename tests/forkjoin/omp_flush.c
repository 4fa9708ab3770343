/*
 * omp_flush.c - threads that synchronise through flags and flushes alone,
 * as ordinary OpenMP programs do (pipelines, wavefronts, producer and
 * consumer), with no barrier, lock or critical between them:
 *   pingpong     two threads take turns on one flag with flush(flag);
 *   produce_*    one thread writes a block (several pages), flushes, sets
 *                a flag; another waits for it and reads the block.  The
 *                producer is the last thread, so the block's pages move
 *                their home to its node.  The consumer waits with a flush
 *                after its loop (the specification's form), with a flush
 *                only before each read of the flag (the common form: a
 *                data race by the specification; only that the wait ends
 *                is checked, its data may be stale when the consumer's
 *                node homes the flag: usage.md, "Flush and atomics"), and
 *                with relaxed and seq_cst atomic reads and writes of the
 *                flag;
 *   chain        thread i waits for thread i-1 only, then must see what
 *                every thread before it wrote: happens-before is
 *                transitive across nodes;
 *   wavefront    a Gauss-Seidel sweep pipelined over row bands with
 *                per-thread progress flags, compared with a serial sweep.
 *
 * Test program (dsmcc, dsmrun; also cross-checked with libomp).  Exit
 * status 0 when every check held; a missing acquire shows as a hang
 * (meson's timeout) or as stale data.
 */
#include <omp.h>
#include <stdlib.h>

#include "omp_check.h"

#define MAX_THREADS 64
#define ROUNDS 40
#define BLOCK 3000          /* doubles: a little under 6 pages */

static int flag;
static int ack;
static double *block;
static int chain_flag[MAX_THREADS];
static long chain_slot[MAX_THREADS];

static void pingpong(int me, int last, int rounds)
{
    if (me != 0 && me != last)
        return;
    for (int r = 0; r < rounds; r++) {
        if ((r % 2 == 0) != (me == 0))
            continue;
        int v;
        do {
#pragma omp flush(flag)
            v = flag;
        } while (v != r);
        flag = r + 1;
#pragma omp flush(flag)
    }
}

enum wait_form { FLUSH_AFTER, FLUSH_BEFORE, ATOMIC_RELAXED, ATOMIC_SEQ_CST };

static void publish_flag(enum wait_form form, int value)
{
    switch (form) {
    case ATOMIC_RELAXED:
#pragma omp flush
#pragma omp atomic write
        flag = value;
        break;
    case ATOMIC_SEQ_CST:
#pragma omp atomic write seq_cst
        flag = value;
        break;
    default:
#pragma omp flush
        flag = value;
#pragma omp flush
        break;
    }
}

static void wait_flag(enum wait_form form, int value)
{
    int seen = 0;
    switch (form) {
    case FLUSH_AFTER:
        while (seen != value) {
#pragma omp flush(flag)
            seen = flag;
        }
#pragma omp flush
        break;
    case FLUSH_BEFORE:
        while (seen != value) {
#pragma omp flush
            seen = flag;
        }
        break;
    case ATOMIC_RELAXED:
        while (seen != value) {
#pragma omp atomic read
            seen = flag;
        }
        break;
    case ATOMIC_SEQ_CST:
        while (seen != value) {
#pragma omp atomic read seq_cst
            seen = flag;
        }
        break;
    }
}

/* Returns the number of rounds in which the consumer saw stale data. */
static long produce(enum wait_form form, int me, int producer, int consumer,
                    int base)
{
    long stale = 0;
    for (int r = base + 1; r <= base + ROUNDS; r++) {
        if (me == producer) {
            for (int i = 0; i < BLOCK; i++)
                block[i] = r * 10000.0 + i;
            publish_flag(form, r);
            int a = 0;
            while (a != r) {
#pragma omp flush
                a = ack;
            }
        } else if (me == consumer) {
            wait_flag(form, r);
            for (int i = 0; i < BLOCK; i++)
                if (block[i] != r * 10000.0 + i) {
                    stale++;
                    break;
                }
            ack = r;
#pragma omp flush
        }
    }
    return stale;
}

/* Round r: thread i waits for thread i-1 (thread 0 for the last thread of
 * the round before), writes its slot, and checks every earlier slot. */
static long chain(int me, int nth, int rounds)
{
    long wrong = 0;
    for (int r = 1; r <= rounds; r++) {
        int prev = me == 0 ? nth - 1 : me - 1, want = me == 0 ? r - 1 : r;
        int seen = -1;
        while (seen < want) {
#pragma omp flush
            seen = chain_flag[prev];
        }
#pragma omp flush
        for (int k = 0; k < me; k++)
            wrong += chain_slot[k] != (long)r * 1000 + k;
        chain_slot[me] = (long)r * 1000 + me;
#pragma omp flush
        chain_flag[me] = r;
#pragma omp flush
    }
    return wrong;
}

#define WN 96      /* rows */
#define WM 640     /* columns: 5 pages of doubles per row */
#define WB 64      /* columns per pipeline block */
#define SWEEPS 3

static double wgrid[WN][WM], wref[WN][WM];
static int wdone[MAX_THREADS];

static void wave_init(double (*g)[WM])
{
    for (int i = 0; i < WN; i++)
        for (int j = 0; j < WM; j++)
            g[i][j] = (i == 0 || j == 0) ? 1.0 + (i + j) % 7 : 0.0;
}

static void wave_block(double (*g)[WM], int lo, int hi, int jb)
{
    int j0 = jb * WB < 1 ? 1 : jb * WB, j1 = (jb + 1) * WB;
    for (int i = lo < 1 ? 1 : lo; i < hi; i++)
        for (int j = j0; j < j1 && j < WM; j++)
            g[i][j] = 0.25 * (g[i - 1][j] + g[i][j - 1] + g[i][j] +
                              (j + 1 < WM ? g[i][j + 1] : 0.0));
}

/* Thread t owns rows [lo, hi); it may do block jb of sweep s once thread
 * t-1 finished it (progress counter s * blocks + jb + 1). */
static void wavefront(int me, int nth)
{
    int blocks = (WM + WB - 1) / WB;
    int lo = WN * me / nth, hi = WN * (me + 1) / nth;
    for (int s = 0; s < SWEEPS; s++)
        for (int jb = 0; jb < blocks; jb++) {
            int need = s * blocks + jb + 1;
            if (me > 0) {
                int seen = 0;
                while (seen < need) {
#pragma omp flush
                    seen = wdone[me - 1];
                }
#pragma omp flush
            }
            /* the thread below must have left the previous sweep's block
             * jb before this one overwrites the rows it reads */
            if (me + 1 < nth && s > 0) {
                int seen = 0;
                while (seen < need - blocks) {
#pragma omp flush
                    seen = wdone[me + 1];
                }
            }
            wave_block(wgrid, lo, hi, jb);
#pragma omp flush
            wdone[me] = need;
#pragma omp flush
        }
}

int main(void)
{
    int nth = omp_get_max_threads();
    CHECK(nth <= MAX_THREADS);
    block = malloc(BLOCK * sizeof *block);
    for (int i = 0; i < BLOCK; i++)
        block[i] = 0;
    wave_init(wgrid);
    wave_init(wref);
    long stale[4] = {0}, wrong = 0;

#pragma omp parallel
    {
        int me = omp_get_thread_num(), last = omp_get_num_threads() - 1;
        if (last > 0)
            pingpong(me, last, 100);
#pragma omp barrier
        CHECK_EQ_LONG(flag, last > 0 ? 100 : 0);
#pragma omp barrier
#pragma omp single
        flag = 0;
        for (int f = 0; f < 4 && last > 0; f++) {
            long s = produce((enum wait_form)f, me, last, 0, f * ROUNDS);
#pragma omp atomic
            stale[f] += s;
#pragma omp barrier
        }
        long w = chain(me, last + 1, 20);
#pragma omp atomic
        wrong += w;
#pragma omp barrier
        wavefront(me, last + 1);
    }

    for (int s = 0; s < SWEEPS; s++)
        for (int jb = 0; jb < (WM + WB - 1) / WB; jb++)
            wave_block(wref, 0, WN, jb);
    double sum = 0, diff = 0;
    for (int i = 0; i < WN; i++)
        for (int j = 0; j < WM; j++) {
            sum += wgrid[i][j];
            double d = wgrid[i][j] - wref[i][j];
            diff += d < 0 ? -d : d;
        }
    CHECK_EQ_LONG(flag, nth > 1 ? 4 * ROUNDS : 0);
    for (int f = 0; f < 4; f++)
        if (f != FLUSH_BEFORE)
            CHECK_EQ_LONG(stale[f], 0);
    CHECK_EQ_LONG(wrong, 0);
    CHECK(diff == 0);
    RESULT("pingpong and producer rounds: flag %d", flag);
    RESULT("wavefront checksum %.6f", sum);
    return check_status("omp_flush");
}
