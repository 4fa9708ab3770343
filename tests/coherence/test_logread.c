/*
 * test_logread.c - unit tests of coh_logread.h, the decoding of gets of
 * another node's published log, against a model of a get that copies
 * words in any order (each aligned 8-byte word whole):
 *   stamps   a writer publishes intervals, storing its stamp words one
 *            at a time; a copy over any window of its stores reads each
 *            word at any moment of the window.  For every such copy the
 *            head decoded was published, is at least what was published
 *            when the copy began, and every bound covers what the head
 *            depends on.  A reader that trusted one word as the head
 *            (the old log head read with the deps in one get) fails this;
 *   headers  a slot of the ring overwritten by a later interval is
 *            refused;
 *   ranges   a range overwritten, or torn between two intervals' words,
 *            is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coh_logread.h"

#define N 3         /* nodes: the writer is node W */
#define W 1
#define S 5         /* intervals the writer publishes */

/* vc[s][k]: the writer's vector time at its interval s (vc[0]: zeros). */
static uint32_t vc[S + 1][N];
/* The stores of the writer in order: word k takes value. */
typedef struct { int k; uint64_t value; } store_t;
static store_t stores[S * N];
static int nstores;

static void make_writer(unsigned seed, int reverse)
{
    srand(seed);
    memset(vc, 0, sizeof vc);
    nstores = 0;
    for (int s = 1; s <= S; s++) {
        for (int k = 0; k < N; k++)
            vc[s][k] = k == W ? (uint32_t)s
                              : vc[s - 1][k] + (uint32_t)(rand() % 3);
        for (int i = 0; i < N; i++) {
            int k = reverse ? N - 1 - i : i;
            stores[nstores++] =
                (store_t){k, COH_LOG_WORD(s, vc[s][k])};
        }
    }
}

/* The stamps after the first t stores. */
static void stamps_at(int t, uint64_t *row)
{
    for (int k = 0; k < N; k++)
        row[k] = COH_LOG_WORD(0, 0);
    for (int i = 0; i < t; i++)
        row[stores[i].k] = stores[i].value;
}

/* Intervals whose stamps are all written after t stores. */
static uint32_t complete_at(int t) { return (uint32_t)(t / N); }

/* Every copy over the window [t0, t1] of stores: each word any of the
 * values it held in the window.  Returns the number of copies checked;
 * fails on the first that breaks a guarantee. */
static long check_window(int t0, int t1, int trust_own_word)
{
    /* the distinct values of each word during the window */
    uint64_t vals[N][S * N + 1];
    int nvals[N];
    for (int k = 0; k < N; k++) {
        uint64_t row[N];
        stamps_at(t0, row);
        vals[k][0] = row[k];
        nvals[k] = 1;
    }
    for (int i = t0; i < t1; i++) {
        int k = stores[i].k;
        vals[k][nvals[k]++] = stores[i].value;
    }
    long copies = 0;
    int pick[N] = {0};
    for (;;) {
        uint64_t row[N];
        for (int k = 0; k < N; k++)
            row[k] = vals[k][pick[k]];
        assert_true(coh_stamp_own_ok(row, W));
        uint32_t head = trust_own_word ? COH_LOG_SEQ(row[W])
                                       : coh_stamps_head(row, N);
        /* published: some stamp of it was stored by t1 */
        assert_true(head <= (uint32_t)((t1 + N - 1) / N));
        /* fresh: everything fully published before the copy began */
        assert_true(head >= complete_at(t0));
        /* closed: each bound covers the head's dependences */
        for (int k = 0; k < N; k++)
            if (k != W)
                assert_true(COH_LOG_LOW(row[k]) >= vc[head][k]);
        copies++;
        int k = 0;
        while (k < N && ++pick[k] == nvals[k])
            pick[k++] = 0;
        if (k == N)
            break;
    }
    return copies;
}

static void test_stamps_any_order(void **state)
{
    (void)state;
    long copies = 0;
    for (unsigned seed = 1; seed <= 20; seed++)
        for (int reverse = 0; reverse < 2; reverse++) {
            make_writer(seed, reverse);
            for (int t0 = 0; t0 <= nstores; t0++)
                for (int t1 = t0; t1 <= nstores && t1 <= t0 + 2 * N; t1++)
                    copies += check_window(t0, t1, 0);
        }
    assert_true(copies > 1000);
}

/* The guarantee needs the smallest number: a copy that read the own word
 * new and another old would hand a head with stale dependences. */
static void test_own_word_alone_is_not_enough(void **state)
{
    (void)state;
    make_writer(3, 0);
    /* vc grows somewhere, or the test says nothing */
    int grew = 0;
    for (int s = 1; s <= S; s++)
        for (int k = 0; k < N; k++)
            grew |= k != W && vc[s][k] > vc[s - 1][k];
    assert_true(grew);
    int failed = 0;
    for (int s = 1; s <= S && !failed; s++)
        for (int k = 0; k < N && !failed; k++) {
            if (k == W || vc[s][k] == vc[s - 1][k])
                continue;
            uint64_t row[N];
            stamps_at((s - 1) * N, row);           /* interval s - 1 */
            row[W] = COH_LOG_WORD(s, s);           /* own word: s */
            failed = COH_LOG_LOW(row[k]) < vc[s][k];
            /* the smallest number is s - 1, whose bounds hold */
            uint32_t head = coh_stamps_head(row, N);
            assert_int_equal(head, s - 1);
            assert_true(COH_LOG_LOW(row[k]) >= vc[head][k]);
        }
    assert_true(failed);
}

static void test_headers_overwritten(void **state)
{
    (void)state;
    uint64_t hdr[4];
    for (uint32_t i = 0; i < 4; i++)
        hdr[i] = COH_LOG_WORD(10 + i, 100 + 3 * i);
    assert_true(coh_headers_match(hdr, 10, 13));
    assert_true(coh_headers_match(hdr, 10, 10));
    /* the slot of 12 already holds 12 + ring */
    hdr[2] = COH_LOG_WORD(12 + COH_LOG_INTERVALS, 7);
    assert_false(coh_headers_match(hdr, 10, 13));
    assert_true(coh_headers_match(hdr, 10, 11));
    /* not yet written (read ahead before the interval was published) */
    hdr[2] = COH_LOG_WORD(12 - COH_LOG_INTERVALS, 7);
    assert_false(coh_headers_match(hdr, 10, 13));
}

static void test_ranges_overwritten_or_torn(void **state)
{
    (void)state;
    /* intervals 5 (2 ranges) and 6 (1 range) after interval 4 */
    uint64_t hdr[3] = {COH_LOG_WORD(4, 20), COH_LOG_WORD(5, 22),
                       COH_LOG_WORD(6, 23)};
    coh_log_range_t r[3] = {
        {COH_LOG_WORD(5, 100), COH_LOG_WORD(5, 2)},
        {COH_LOG_WORD(5, 200), COH_LOG_WORD(5, 1)},
        {COH_LOG_WORD(6, 300), COH_LOG_WORD(6, 4)},
    };
    assert_true(coh_ranges_match(hdr, 4, 6, r));
    /* the last slot overwritten by a later interval */
    r[2] = (coh_log_range_t){COH_LOG_WORD(90, 1), COH_LOG_WORD(90, 1)};
    assert_false(coh_ranges_match(hdr, 4, 6, r));
    /* torn: its first word from interval 6, its count from a later one */
    r[2] = (coh_log_range_t){COH_LOG_WORD(6, 300), COH_LOG_WORD(90, 1)};
    assert_false(coh_ranges_match(hdr, 4, 6, r));
    /* a range of the wrong interval (an off-by-one in the headers) */
    r[2] = (coh_log_range_t){COH_LOG_WORD(6, 300), COH_LOG_WORD(6, 4)};
    r[1] = (coh_log_range_t){COH_LOG_WORD(6, 200), COH_LOG_WORD(6, 1)};
    assert_false(coh_ranges_match(hdr, 4, 6, r));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stamps_any_order),
        cmocka_unit_test(test_own_word_alone_is_not_enough),
        cmocka_unit_test(test_headers_overwritten),
        cmocka_unit_test(test_ranges_overwritten_or_torn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
