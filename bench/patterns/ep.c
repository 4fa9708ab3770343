/*
 * ep.c - an embarrassingly parallel kernel in the manner of NPB EP: every
 * step draws N pairs of uniform numbers (from a counter-based generator,
 * so the answer does not depend on the schedule), keeps those in the unit
 * disc and turns them into Gaussian pairs (polar Box-Muller); the counts
 * and sums are reduced once per step.  No data is shared but the
 * reduction.
 *
 * Check: a serial run gives the same counts exactly and the same sums to
 * 1e-12 relative (they add in another order).
 *
 * Usage: ep [-n PAIRS per step] [-s STEPS] [-T SECONDS] [-w WARMUP]
 * Exit status: 0 right, 1 wrong answer, 2 bad input.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "patterns.h"

struct tally {
    long accepted;   /* pairs inside the unit disc */
    long inner;      /* Gaussian pairs with max(|X|, |Y|) < 1 */
    double sx, sy;
};

struct ep {
    long pairs;
    struct tally total;
};

/* A uniform number in (-1, 1) from a counter (splitmix64). */
static double uniform(uint64_t counter)
{
    uint64_t z = counter + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return 2.0 * ((double)(z >> 11) * 0x1.0p-53) - 1.0 + 0x1.0p-54;
}

/* Pair K of step STEP, added to *T. */
static void draw(long step, long pairs, long k, struct tally *t)
{
    uint64_t counter = 2 * ((uint64_t)step * (uint64_t)pairs + (uint64_t)k);
    double x = uniform(counter), y = uniform(counter + 1);
    double s = x * x + y * y;
    if (s > 1.0 || s == 0.0)
        return;
    double factor = sqrt(-2.0 * log(s) / s);
    double gx = x * factor, gy = y * factor;
    t->accepted++;
    t->inner += fabs(gx) < 1.0 && fabs(gy) < 1.0;
    t->sx += gx;
    t->sy += gy;
}

static void ep_step(void *state, long step)
{
    struct ep *e = state;
    long accepted = 0, inner = 0, pairs = e->pairs;
    double sx = 0.0, sy = 0.0;
#pragma omp parallel for schedule(static) reduction(+:accepted, inner, sx, sy)
    for (long k = 0; k < pairs; k++) {
        struct tally t = {0, 0, 0.0, 0.0};
        draw(step, pairs, k, &t);
        accepted += t.accepted;
        inner += t.inner;
        sx += t.sx;
        sy += t.sy;
    }
    e->total.accepted += accepted;
    e->total.inner += inner;
    e->total.sx += sx;
    e->total.sy += sy;
}

int main(int argc, char **argv)
{
    patterns_options_t o;
    patterns_parse(argc, argv, "ep", 1L << 17, 1, 1L << 30, 1000000, &o);
    struct ep e = {.pairs = o.size};

    double seconds;
    long steps = patterns_run(&o, ep_step, &e, &seconds);

    struct tally want = {0, 0, 0.0, 0.0};
    double magnitude = 0.0;
    for (long s = 0; s < o.warmup + steps; s++)
        for (long k = 0; k < o.size; k++) {
            struct tally t = {0, 0, 0.0, 0.0};
            draw(s, o.size, k, &t);
            want.accepted += t.accepted;
            want.inner += t.inner;
            want.sx += t.sx;
            want.sy += t.sy;
            magnitude += fabs(t.sx) + fabs(t.sy);
        }
    double error = (fabs(e.total.sx - want.sx) + fabs(e.total.sy - want.sy)) /
                   magnitude;
    bool ok = e.total.accepted == want.accepted &&
              e.total.inner == want.inner && error <= 1e-12;
    if (!ok)
        fprintf(stderr, "ep: accepted %ld (want %ld), inner %ld (want %ld)\n",
                e.total.accepted, want.accepted, e.total.inner, want.inner);
    return patterns_report(&o, steps, seconds, ok, error);
}
