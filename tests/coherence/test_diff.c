/*
 * test_diff.c - unit tests of coh_diff: runs, encode/apply round trip, and
 * rejection of malformed encodings without touching the page.
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

static uint64_t page[PAGE / 8], twin[PAGE / 8], out[PAGE / 8];
static unsigned char enc[DSM_DIFF_MAX_ENCODED(PAGE)];

struct runs { size_t n, off[600], len[600]; };
static void collect(size_t off, size_t len, void *arg)
{
    struct runs *r = arg;
    r->off[r->n] = off;
    r->len[r->n++] = len;
}

static void test_runs(void **state)
{
    memset(twin, 0, sizeof twin);
    memcpy(page, twin, sizeof page);
    struct runs r = {0};
    assert_int_equal(dsm_diff_runs(page, twin, PAGE, collect, &r), 0);
    page[0] = 1; page[1] = 2; page[10] = 3; page[511] = 4;
    assert_int_equal(dsm_diff_runs(page, twin, PAGE, collect, &r), 3);
    assert_int_equal(r.off[0], 0);  assert_int_equal(r.len[0], 16);
    assert_int_equal(r.off[1], 80); assert_int_equal(r.len[1], 8);
    assert_int_equal(r.off[2], 4088); assert_int_equal(r.len[2], 8);
}

static void test_round_trip_random(void **state)
{
    srand(7);
    for (int iter = 0; iter < 2000; iter++) {
        for (size_t i = 0; i < PAGE / 8; i++)
            twin[i] = (uint64_t)rand() << 32 | (uint64_t)rand();
        memcpy(page, twin, sizeof page);
        int changes = rand() % 600;
        for (int c = 0; c < changes; c++)
            page[rand() % (PAGE / 8)] ^= (uint64_t)rand() + 1;
        size_t len = dsm_diff_encode(page, twin, PAGE, enc);
        assert_true(len <= DSM_DIFF_MAX_ENCODED(PAGE));
        memcpy(out, twin, sizeof out);
        assert_int_equal(dsm_diff_apply(out, PAGE, enc, len), DSM_OK);
        assert_memory_equal(out, page, PAGE);
    }
}

static void test_worst_case_size(void **state)
{
    memset(twin, 0, sizeof twin);
    for (size_t i = 0; i < PAGE / 8; i++)
        page[i] = (i % 2) ? 0 : i + 1;       /* every other word changed */
    size_t len = dsm_diff_encode(page, twin, PAGE, enc);
    assert_int_equal(len, (PAGE / 16) * (4 + 8));
    assert_true(len <= DSM_DIFF_MAX_ENCODED(PAGE));
}

static void test_malformed_rejected(void **state)
{
    uint16_t bad[4];
    memset(out, 0xab, sizeof out);
    memcpy(page, out, sizeof page);
    bad[0] = 510; bad[1] = 5;                /* runs past the page */
    assert_int_equal(dsm_diff_apply(out, PAGE, bad, 4 + 40), DSM_ERR_PROTOCOL);
    bad[0] = 0; bad[1] = 0;                  /* empty run */
    assert_int_equal(dsm_diff_apply(out, PAGE, bad, 4), DSM_ERR_PROTOCOL);
    bad[0] = 3; bad[1] = 2;                  /* truncated data */
    assert_int_equal(dsm_diff_apply(out, PAGE, bad, 8), DSM_ERR_PROTOCOL);
    assert_int_equal(dsm_diff_apply(out, PAGE, bad, 3), DSM_ERR_PROTOCOL);
    /* runs out of order */
    unsigned char two[2 * 12];
    uint16_t h1[2] = {10, 1}, h2[2] = {5, 1};
    memcpy(two, h1, 4); memset(two + 4, 1, 8);
    memcpy(two + 12, h2, 4); memset(two + 16, 2, 8);
    assert_int_equal(dsm_diff_apply(out, PAGE, two, sizeof two), DSM_ERR_PROTOCOL);
    assert_memory_equal(out, page, PAGE);    /* nothing was written */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_worst_case_size),
        cmocka_unit_test(test_malformed_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
