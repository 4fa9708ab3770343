/*
 * test_activity.c - wording of the activity board (base_activity.c), the
 * text dsmrun appends to "node N ... killed by signal 9 (Killed) while".
 * Layer: tests, suite 'base'.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base_activity.h"

static void describe(const dsm_activity_entry_t *e, const char *expected)
{
    char text[256];
    size_t len = dsm_activity_describe(e, text, sizeof text);
    assert_string_equal(text, expected);
    assert_int_equal(len, strlen(expected));
}

static void test_each_kind(void **state)
{
    (void)state;
    long page = sysconf(_SC_PAGESIZE);
    dsm_activity_entry_t e;
    memset(&e, 0, sizeof e);
    describe(&e, "");
    e.kind = DSM_ACTIVITY_STARTING;
    describe(&e, "starting");
    e.kind = DSM_ACTIVITY_COMPUTING;
    describe(&e, "computing");
    e.kind = DSM_ACTIVITY_FINISHING;
    describe(&e, "finishing");
    e.kind = DSM_ACTIVITY_WAITING;
    e.peer = -1;
    strcpy(e.what, "a lock grant");
    describe(&e, "waiting for a lock grant");
    e.peer = 3;
    describe(&e, "waiting for a lock grant from node 3");
    e.about = DSM_ACTIVITY_ABOUT_LOCK;
    e.arg = ((uint64_t)(1 + 1) << 32) | 7;
    describe(&e, "waiting for a lock grant from node 3 (lock 7 of node 1)");
    e.arg = (1ull << 63) | 0x601040;
    describe(&e, "waiting for a lock grant from node 3 (named lock "
             "0x601040)");
    e.about = DSM_ACTIVITY_ABOUT_TRANSFER;
    e.arg = 0;
    strcpy(e.what, "a put to");
    describe(&e, "waiting for a put to node 3");
    e.peer = -1;
    strcpy(e.what, "the send of a put");
    describe(&e, "waiting for the send of a put");
    e.about = 0;
    e.kind = DSM_ACTIVITY_FETCHING;
    e.peer = 0;
    e.arg = (uint64_t)page * 27 + 8;
    describe(&e, "fetching page 27 from node 0");
    e.segment = 1;
    describe(&e, "reading the control segment of node 0");
    e.kind = 99;   /* torn or unknown: nothing rather than nonsense */
    describe(&e, "");
}

static void test_locks_held(void **state)
{
    (void)state;
    dsm_activity_entry_t e;
    memset(&e, 0, sizeof e);
    e.kind = DSM_ACTIVITY_COMPUTING;
    e.locks_held = 1;
    e.last_lock = ((uint64_t)(2 + 1) << 32) | 5;   /* lock 5 of node 2 */
    describe(&e, "computing while holding 1 lock (last: lock 5 of node 2)");
    e.locks_held = 2;
    describe(&e, "computing while holding 2 locks (last: lock 5 of node 2)");
    e.last_lock = (1ull << 63) | 0x601040;          /* a named lock */
    describe(&e, "computing while holding 2 locks (last: named lock "
             "0x601040)");
}

static void test_unterminated_what_and_truncation(void **state)
{
    (void)state;
    dsm_activity_entry_t e;
    memset(&e, 'x', sizeof e);
    e.kind = DSM_ACTIVITY_WAITING;
    e.peer = -1;
    e.locks_held = 0;
    char text[256];
    /* what has no NUL: at most DSM_ACTIVITY_WHAT_MAX - 1 characters */
    size_t len = dsm_activity_describe(&e, text, sizeof text);
    assert_int_equal(len, strlen("waiting for ") + DSM_ACTIVITY_WHAT_MAX - 1);
    char small[10];
    len = dsm_activity_describe(&e, small, sizeof small);
    assert_int_equal(len, sizeof small - 1);
    assert_string_equal(small, "waiting f");
}

static void test_node_block(void **state)
{
    (void)state;
    static dsm_activity_entry_t block[DSM_ACTIVITY_SLOTS];
    char text[512];
    assert_int_equal(dsm_activity_describe_node(block, text, sizeof text), 0);
    assert_string_equal(text, "");
    block[0].kind = DSM_ACTIVITY_COMPUTING;
    block[1].kind = DSM_ACTIVITY_WAITING;
    block[1].peer = -1;
    strcpy(block[1].what, "every node's barrier arrival");
    block[2].kind = DSM_ACTIVITY_COMPUTING;   /* said once */
    dsm_activity_describe_node(block, text, sizeof text);
    assert_string_equal(text,
                        "computing, waiting for every node's barrier arrival");
    assert_int_equal(DSM_ACTIVITY_BLOCK, 4096);
    assert_int_equal(dsm_activity_board_size(3), 3 * 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_kind),
        cmocka_unit_test(test_locks_held),
        cmocka_unit_test(test_unterminated_what_and_truncation),
        cmocka_unit_test(test_node_block),
    };
    return cmocka_run_group_tests_name("activity", tests, NULL, NULL);
}
