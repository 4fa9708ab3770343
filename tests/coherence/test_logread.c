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
 *            is refused;
 *   near     the small rings a flush reads with the stamps: whatever a
 *            copy read, headers and ranges with the numbers expected are
 *            the truth.
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

/* ---- near rings ------------------------------------------------------
 * A writer publishes intervals of 1 to 6 ranges (some of 40, more than
 * the near ring holds) into the near rings, word by word: each range's
 * two words, then the header.  A reader that holds interval `from` (and
 * knows where its ranges end) copies the near rings over a window of
 * those stores, each word any value it held in the window, and takes as
 * `to` any interval complete by the window's end (what the stamps of the
 * same get may announce).  Whenever the headers and ranges it extracts
 * carry the numbers it expects, they are exactly the truth. */
#define NS 60       /* intervals */
static uint32_t near_nr[NS + 1], near_end[NS + 1];  /* ranges, where they end */
typedef struct { int slot; int word; uint64_t value; } near_store_t;
/* slot < COH_NEAR_HEADERS: a header; else a range (word 0 first, 1 count) */
static near_store_t near_stores[NS * 90];
static int near_nstores, near_done[NS + 1];   /* stores when s complete */

static uint64_t range_first(uint32_t index) { return 1000 + 7 * index; }
static uint64_t range_count(uint32_t index) { return 1 + index % 5; }

static void near_writer(unsigned seed)
{
    srand(seed);
    near_nstores = 0;
    near_end[0] = 0;
    near_done[0] = 0;
    for (uint32_t s = 1; s <= NS; s++) {
        near_nr[s] = rand() % 9 == 0 ? 40 : 1 + rand() % 6;
        near_end[s] = near_end[s - 1] + near_nr[s];
        for (uint32_t i = near_end[s - 1]; i < near_end[s]; i++) {
            int slot = COH_NEAR_HEADERS + (int)(i % COH_NEAR_RANGES);
            near_stores[near_nstores++] =
                (near_store_t){slot, 0, COH_LOG_WORD(s, range_first(i))};
            near_stores[near_nstores++] =
                (near_store_t){slot, 1, COH_LOG_WORD(s, range_count(i))};
        }
        near_stores[near_nstores++] = (near_store_t){
            (int)(s % COH_NEAR_HEADERS), 0, COH_LOG_WORD(s, near_end[s])};
        near_done[s] = near_nstores;
    }
}

/* The value of a word of the near rings after t stores. */
static uint64_t near_word_at(int slot, int word, int t)
{
    uint64_t v = 0;     /* the rings start zeroed */
    for (int i = 0; i < t; i++)
        if (near_stores[i].slot == slot && near_stores[i].word == word)
            v = near_stores[i].value;
    return v;
}

/* Any value the word held in the window [t0, t1]. */
static uint64_t near_word_any(int slot, int word, int t0, int t1)
{
    int moments = 1;
    for (int i = t0; i < t1; i++)
        moments += near_stores[i].slot == slot && near_stores[i].word == word;
    int pick = rand() % moments;
    if (pick == 0)
        return near_word_at(slot, word, t0);
    for (int i = t0; i < t1; i++)
        if (near_stores[i].slot == slot && near_stores[i].word == word &&
            --pick == 0)
            return near_stores[i].value;
    return 0;
}

static void test_near_rings_any_order(void **state)
{
    (void)state;
    long used = 0, refused = 0;
    for (unsigned seed = 1; seed <= 8; seed++) {
        near_writer(seed);
        for (int trial = 0; trial < 4000; trial++) {
            int t0 = rand() % (near_nstores + 1);
            int t1 = t0 + rand() % 12;
            if (t1 > near_nstores)
                t1 = near_nstores;
            uint32_t latest = 0;
            while (latest < NS && near_done[latest + 1] <= t1)
                latest++;
            if (latest == 0)
                continue;
            uint32_t to = 1 + (uint32_t)rand() % latest;
            uint32_t from = to - (uint32_t)rand() % (to < 20 ? to + 1 : 20);
            uint64_t iv[COH_NEAR_HEADERS];
            coh_log_range_t rng[COH_NEAR_RANGES];
            for (int k = 0; k < (int)COH_NEAR_HEADERS; k++)
                iv[k] = near_word_any(k, 0, t0, t1);
            for (int k = 0; k < (int)COH_NEAR_RANGES; k++) {
                int slot = COH_NEAR_HEADERS + k;
                rng[k].first = near_word_any(slot, 0, t0, t1);
                rng[k].count = near_word_any(slot, 1, t0, t1);
            }
            /* as coh_acquire_all: headers from..from+15, ranges from the
             * end of from's, used when their numbers match */
            uint64_t hdr[COH_NEAR_HEADERS];
            coh_log_range_t out[COH_NEAR_RANGES];
            coh_near_headers(iv, COH_NEAR_HEADERS, from, COH_NEAR_HEADERS,
                             hdr);
            coh_near_ranges(rng, COH_NEAR_RANGES, near_end[from],
                            COH_NEAR_RANGES, out);
            if (to == from || to - from >= COH_NEAR_HEADERS ||
                !coh_headers_match(hdr, from, to)) {
                refused++;
                continue;
            }
            for (uint32_t i = 0; i <= to - from; i++)
                assert_int_equal(COH_LOG_LOW(hdr[i]), near_end[from + i]);
            uint32_t count = COH_LOG_LOW(hdr[to - from]) -
                             COH_LOG_LOW(hdr[0]);
            if (count > COH_NEAR_RANGES || !coh_ranges_match(hdr, from, to,
                                                             out)) {
                refused++;
                continue;
            }
            for (uint32_t k = 0; k < count; k++) {
                uint32_t index = near_end[from] + k;
                assert_int_equal(COH_LOG_LOW(out[k].first),
                                 range_first(index));
                assert_int_equal(COH_LOG_LOW(out[k].count),
                                 range_count(index));
            }
            used++;
        }
    }
    assert_true(used > 1000);
    assert_true(refused > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stamps_any_order),
        cmocka_unit_test(test_own_word_alone_is_not_enough),
        cmocka_unit_test(test_headers_overwritten),
        cmocka_unit_test(test_ranges_overwritten_or_torn),
        cmocka_unit_test(test_near_rings_any_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
