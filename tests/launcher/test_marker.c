/*
 * test_marker.c - launch_marker.c on its own: an agent's acknowledgement
 * taken out of a node's output however the reads split it, and nothing
 * else taken or lost.
 *
 * Layer: tests, suite 'launcher'.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "launch_marker.h"

typedef struct sink {
    char data[4096];
    size_t len;
} sink_t;

static void collect(void *arg, const char *data, size_t len)
{
    sink_t *s = arg;
    assert_true(len > 0);
    assert_true(s->len + len <= sizeof s->data);
    memcpy(s->data + s->len, data, len);
    s->len += len;
}

/* Feeds `stream` in reads of `step` bytes, as launch_remote.c does: what
 * was held goes in front of the next read.  Returns markers found. */
static int feed(const char *marker, const char *stream, size_t step,
                sink_t *out)
{
    char buf[4096];
    size_t held = 0, pos = 0, len = strlen(stream);
    int found = 0;
    out->len = 0;
    while (pos < len) {
        size_t n = len - pos < step ? len - pos : step;
        memcpy(buf + held, stream + pos, n);
        pos += n;
        size_t total = held + n;
        held = dsm_launch_marker_scan(marker, buf, total, 0, collect, out,
                                      &found);
        assert_true(held < strlen(marker));
        memmove(buf, buf + total - held, held);
    }
    dsm_launch_marker_scan(marker, buf, held, 1, collect, out, &found);
    return found;
}

static void test_format(void **state)
{
    (void)state;
    char line[DSM_LAUNCH_MARKER_MAX];
    size_t len = dsm_launch_marker_format(0x0123456789abcdefull, line);
    assert_string_equal(line, "dsmrun-agent reported 0123456789abcdef\n");
    assert_int_equal(len, strlen(line));
    assert_int_equal(len + 1, DSM_LAUNCH_MARKER_MAX);
}

/* A marker inside a line of the program's output, another at a line's
 * start, every split of the reads: both counted, the rest intact (a
 * marker with another nonce, and a marker's start at the very end). */
static void test_every_split(void **state)
{
    (void)state;
    char marker[DSM_LAUNCH_MARKER_MAX];
    dsm_launch_marker_format(42, marker);
    char stream[512];
    snprintf(stream, sizeof stream, "step 1 of 9 ... %shalf a line\n%s"
             "dsmrun-agent reported 000000000000002b (another)\n"
             "dsmrun-agent rep", marker, marker);
    const char *expect = "step 1 of 9 ... half a line\n"
                         "dsmrun-agent reported 000000000000002b "
                         "(another)\ndsmrun-agent rep";
    for (size_t step = 1; step <= strlen(stream); step++) {
        sink_t out;
        assert_int_equal(feed(marker, stream, step, &out), 2);
        assert_int_equal(out.len, strlen(expect));
        assert_memory_equal(out.data, expect, out.len);
    }
}

/* A tail that might begin a marker is held only until the next read: a
 * stream without one comes out whole after every read. */
static void test_holds_only_a_possible_start(void **state)
{
    (void)state;
    char marker[DSM_LAUNCH_MARKER_MAX];
    dsm_launch_marker_format(1, marker);
    sink_t out = {.len = 0};
    int found = 0;
    const char *text = "plain output, dsmrun\n";
    size_t held = dsm_launch_marker_scan(marker, text, strlen(text), 0,
                                         collect, &out, &found);
    assert_int_equal(held, 0);
    assert_int_equal(out.len, strlen(text));
    const char *start = "done. dsmrun-age";
    held = dsm_launch_marker_scan(marker, start, strlen(start), 0, collect,
                                  &out, &found);
    assert_int_equal(held, strlen("dsmrun-age"));
    assert_int_equal(out.len, strlen(text) + strlen("done. "));
    assert_int_equal(found, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_every_split),
        cmocka_unit_test(test_holds_only_a_possible_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
