/*
 * test_sys_activity.c - what a thread records on the activity board
 * (sys_activity.c): a transfer's wait is recorded only over "computing",
 * never over a fetch or a wait that names more, and ends where it began.
 * Layer: tests, suite 'sys'.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "base_activity.h"
#include "base_config.h"
#include "sys_activity.h"

static const dsm_activity_entry_t *board;

/* The board of a one-node job, as dsmrun makes it; attached before any
 * test records anything, so this thread's entry is the first slot. */
static int attach_board(void **state)
{
    (void)state;
    int fd = memfd_create("dsmomp-activity", 0);
    if (fd < 0 || ftruncate(fd, (off_t)dsm_activity_board_size(1)) != 0)
        return -1;
    char value[16];
    snprintf(value, sizeof value, "%d", fd);
    setenv("DSM_ACTIVITY_FD", value, 1);
    if (dsm_config_load() != DSM_OK)
        return -1;
    dsm_activity_attach(0);
    board = mmap(NULL, DSM_ACTIVITY_BLOCK, PROT_READ, MAP_SHARED, fd, 0);
    return board == MAP_FAILED ? -1 : 0;
}

static void assert_board_says(const char *expected)
{
    char text[256];
    dsm_activity_describe(&board[0], text, sizeof text);
    assert_string_equal(text, expected);
}

static void test_transfer_over_computing(void **state)
{
    (void)state;
    dsm_activity_computing();
    assert_board_says("computing");
    dsm_activity_saved_t saved;
    assert_true(dsm_activity_transfer_begin(&saved, "a put to", 1));
    assert_board_says("waiting for a put to node 1");
    dsm_activity_end(&saved);
    assert_board_says("computing");
}

static void test_transfer_keeps_fetch(void **state)
{
    (void)state;
    long page = sysconf(_SC_PAGESIZE);
    dsm_activity_computing();
    dsm_activity_saved_t fetch, transfer;
    dsm_activity_fetch_begin(&fetch, 2, 0, (uint64_t)page * 5);
    assert_false(dsm_activity_transfer_begin(&transfer, "a get from", 2));
    assert_board_says("fetching page 5 from node 2");
    dsm_activity_end(&fetch);
    assert_board_says("computing");
}

static void test_transfer_keeps_wait(void **state)
{
    (void)state;
    dsm_activity_computing();
    dsm_activity_saved_t wait, transfer;
    dsm_activity_wait_about(&wait, "a lock grant", 1, DSM_ACTIVITY_ABOUT_LOCK,
                            ((uint64_t)(0 + 1) << 32) | 3, 0);
    assert_false(dsm_activity_transfer_begin(&transfer,
                                             "an active-message send to", 1));
    assert_board_says("waiting for a lock grant from node 1 (lock 3 of "
                      "node 0)");
    dsm_activity_end(&wait);
    assert_board_says("computing");
}

static void test_transfer_without_node(void **state)
{
    (void)state;
    dsm_activity_computing();
    dsm_activity_saved_t saved;
    assert_true(dsm_activity_transfer_begin(&saved, "the send of a put", -1));
    assert_board_says("waiting for the send of a put");
    dsm_activity_end(&saved);
    assert_board_says("computing");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transfer_over_computing),
        cmocka_unit_test(test_transfer_keeps_fetch),
        cmocka_unit_test(test_transfer_keeps_wait),
        cmocka_unit_test(test_transfer_without_node),
    };
    return cmocka_run_group_tests(tests, attach_board, NULL);
}
