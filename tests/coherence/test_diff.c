/*
 * test_diff.c - unit tests of coh_diff: encode/apply round trip, byte
 * exactness (two writers of one word keep each other's bytes), worst-case
 * size, rejection of malformed encodings without touching the page, and
 * the bounded encoding (dsm_diff_encode_within).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coh_diff.h"

#define PAGE 4096

static unsigned char page[PAGE], twin[PAGE], out[PAGE], other[PAGE];
static unsigned char enc[DSM_DIFF_MAX_ENCODED(PAGE)];

static void test_equal_pages_give_empty_diff(void **state)
{
    memset(page, 7, PAGE);
    memcpy(twin, page, PAGE);
    assert_int_equal(dsm_diff_encode(page, twin, PAGE, enc), 0);
}

static void test_round_trip_random(void **state)
{
    srand(7);
    for (int iter = 0; iter < 2000; iter++) {
        for (size_t i = 0; i < PAGE; i++)
            twin[i] = (unsigned char)rand();
        memcpy(page, twin, PAGE);
        int changes = rand() % 2000;
        for (int c = 0; c < changes; c++)
            page[rand() % PAGE] ^= (unsigned char)(rand() % 255 + 1);
        size_t len = dsm_diff_encode(page, twin, PAGE, enc);
        assert_true(len <= DSM_DIFF_MAX_ENCODED(PAGE));
        memcpy(out, twin, PAGE);
        size_t bytes;
        assert_int_equal(dsm_diff_apply(out, PAGE, enc, len, &bytes), DSM_OK);
        assert_memory_equal(out, page, PAGE);
    }
}

/* Writer A changes byte 1 of a word, writer B byte 6 of the same word, from
 * the same twin; the home applies both diffs in either order and keeps both
 * bytes. */
static void test_two_writers_one_word(void **state)
{
    for (int order = 0; order < 2; order++) {
        memset(twin, 0, PAGE);
        memcpy(page, twin, PAGE);
        memcpy(other, twin, PAGE);
        page[8 + 1] = 0x11;              /* A: a char */
        ((uint16_t *)other)[4 + 3] = 0x2233;  /* B: a short, bytes 6..7 */
        static unsigned char enc_a[DSM_DIFF_MAX_ENCODED(PAGE)],
            enc_b[DSM_DIFF_MAX_ENCODED(PAGE)];
        size_t la = dsm_diff_encode(page, twin, PAGE, enc_a);
        size_t lb = dsm_diff_encode(other, twin, PAGE, enc_b);
        memcpy(out, twin, PAGE);
        size_t bytes;
        if (order == 0) {
            assert_int_equal(dsm_diff_apply(out, PAGE, enc_a, la, &bytes), DSM_OK);
            assert_int_equal(bytes, 1);
            assert_int_equal(dsm_diff_apply(out, PAGE, enc_b, lb, &bytes), DSM_OK);
            assert_int_equal(bytes, 2);
        } else {
            assert_int_equal(dsm_diff_apply(out, PAGE, enc_b, lb, NULL), DSM_OK);
            assert_int_equal(dsm_diff_apply(out, PAGE, enc_a, la, NULL), DSM_OK);
        }
        assert_int_equal(out[9], 0x11);
        assert_int_equal(((uint16_t *)out)[7], 0x2233);
        for (int i = 0; i < PAGE; i++)
            if (i != 9 && i != 14 && i != 15)
                assert_int_equal(out[i], 0);
    }
}

static void test_worst_case_size(void **state)
{
    memset(twin, 0, PAGE);
    memset(page, 1, PAGE);                  /* every byte changed */
    size_t len = dsm_diff_encode(page, twin, PAGE, enc);
    assert_int_equal(len, 4 + PAGE);        /* one full run: no masks */
    assert_true(len <= DSM_DIFF_MAX_ENCODED(PAGE));
    memcpy(out, twin, PAGE);
    assert_int_equal(dsm_diff_apply(out, PAGE, enc, len, NULL), DSM_OK);
    assert_memory_equal(out, page, PAGE);
    page[100] = 0;                          /* one byte unchanged: masks */
    len = dsm_diff_encode(page, twin, PAGE, enc);
    assert_int_equal(len, 4 + PAGE / 8 + PAGE);
    memset(page, 0, PAGE);
    for (size_t i = 0; i < PAGE; i += 16)   /* every other word: short runs */
        page[i] = 1;
    len = dsm_diff_encode(page, twin, PAGE, enc);
    assert_int_equal(len, (PAGE / 16) * (4 + 1 + 8));
    for (size_t i = 0; i < PAGE; i += 16)   /* ... whose words changed whole */
        memset(page + i, 2, 8);
    len = dsm_diff_encode(page, twin, PAGE, enc);
    assert_int_equal(len, (PAGE / 16) * (4 + 8));
}

static void test_malformed_rejected(void **state)
{
    unsigned char bad[64];
    memset(out, 0xab, PAGE);
    memcpy(page, out, PAGE);
    uint16_t h[2];
    h[0] = 510; h[1] = 5;                   /* runs past the page */
    memcpy(bad, h, 4); memset(bad + 4, 0xff, 45);
    assert_int_equal(dsm_diff_apply(out, PAGE, bad, 4 + 45, NULL), DSM_ERR_PROTOCOL);
    h[0] = 0; h[1] = 0;                     /* empty run */
    memcpy(bad, h, 4);
    assert_int_equal(dsm_diff_apply(out, PAGE, bad, 4, NULL), DSM_ERR_PROTOCOL);
    h[0] = 3; h[1] = 2;                     /* truncated data */
    memcpy(bad, h, 4);
    assert_int_equal(dsm_diff_apply(out, PAGE, bad, 4 + 2 + 8, NULL), DSM_ERR_PROTOCOL);
    assert_int_equal(dsm_diff_apply(out, PAGE, bad, 3, NULL), DSM_ERR_PROTOCOL);
    /* runs out of order */
    unsigned char two[2 * 13];
    uint16_t h1[2] = {10, 1}, h2[2] = {5, 1};
    memcpy(two, h1, 4); memset(two + 4, 0xff, 9);
    memcpy(two + 13, h2, 4); memset(two + 17, 0xff, 9);
    assert_int_equal(dsm_diff_apply(out, PAGE, two, sizeof two, NULL), DSM_ERR_PROTOCOL);
    assert_memory_equal(out, page, PAGE);    /* nothing was written */
}

/* A bounded encoding is the full one when that fits, and max + 1 when it
 * does not (whatever the limit, a run ending at it included). */
static void test_encode_within(void **state)
{
    static unsigned char bounded[DSM_DIFF_MAX_ENCODED(PAGE)];
    srand(11);
    for (int iter = 0; iter < 500; iter++) {
        for (size_t i = 0; i < PAGE; i++)
            twin[i] = (unsigned char)rand();
        memcpy(page, twin, PAGE);
        int changes = iter % 5 == 0 ? PAGE : rand() % 300;
        for (int c = 0; c < changes; c++)
            page[rand() % PAGE] ^= (unsigned char)(rand() % 255 + 1);
        size_t len = dsm_diff_encode(page, twin, PAGE, enc);
        size_t limits[] = {0, 13, 512, len ? len - 1 : 0, len, len + 1,
                           DSM_DIFF_MAX_ENCODED(PAGE)};
        for (size_t k = 0; k < sizeof limits / sizeof *limits; k++) {
            size_t max = limits[k];
            size_t got = dsm_diff_encode_within(page, twin, PAGE, bounded,
                                                max);
            if (len <= max) {
                assert_int_equal(got, len);
                assert_memory_equal(bounded, enc, len);
            } else {
                assert_int_equal(got, max + 1);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_pages_give_empty_diff),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_two_writers_one_word),
        cmocka_unit_test(test_worst_case_size),
        cmocka_unit_test(test_malformed_rejected),
        cmocka_unit_test(test_encode_within),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
