/*
 * node_tp_fault.c - blocking transport calls from inside a SIGSEGV handler,
 * as the coherence layer makes them: a page of a PROT_NONE window is
 * filled, on first touch, with a get from the next node's region; the
 * handler also sends an active message and does a remote fetch-and-add.
 *
 * Layer: tests (links the transport and sys).  A node program run under
 * dsmrun; every node runs the same collective test.  The fault handler is
 * installed in the test body: cmocka replaces SIGSEGV handlers around
 * each test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "sys_fault.h"
#include "tp_test_util.h"

enum { AM_TOUCHED = DSM_TP_AM_CLIENT_FIRST, PAGES = 8, PAGE = 4096 };

static tt_node_t node;
static unsigned char *window;
static volatile int touched_seen;   /* AM_TOUCHED messages received */
static volatile int all_touched;
static volatile int handler_errors;

static void on_touched(int src, const void *payload, size_t len, void *arg)
{
    if (++touched_seen == PAGES)
        __atomic_store_n(&all_touched, 1, __ATOMIC_RELEASE);
}

/* Runs in the SIGSEGV handler: only the transport's blocking calls, the
 * stack and mprotect. */
static int fill_from_next_node(uintptr_t addr, dsm_fault_access_t access)
{
    uintptr_t lo = (uintptr_t)window;
    if (addr < lo || addr >= lo + PAGES * PAGE)
        return 0;
    uintptr_t page = addr & ~(uintptr_t)(PAGE - 1);
    uint32_t index = (uint32_t)((page - lo) / PAGE);
    int next = (node.rank + 1) % node.size;
    unsigned char buf[PAGE];
    uint64_t old;
    if (dsm_tp_get(next, DSM_TP_SEG_REGION, (uint64_t)index * PAGE, buf,
                   PAGE) != DSM_OK ||
        dsm_tp_atomic_fadd64(next, DSM_TP_SEG_CONTROL, 0, 1, &old) != DSM_OK ||
        dsm_tp_am_send(next, AM_TOUCHED, &index, sizeof index) != DSM_OK)
        handler_errors++;
    if (mprotect((void *)page, PAGE, PROT_READ | PROT_WRITE) != 0)
        return 0;
    memcpy((void *)page, buf, PAGE);
    return 1;
}

static void test_calls_from_fault_handler(void **state)
{
    for (unsigned p = 0; p < PAGES; p++)
        for (size_t i = 0; i < PAGE; i++)
            ((unsigned char *)node.region.rt)[p * PAGE + i] =
                tt_pattern((unsigned)node.rank, p, i);
    tt_barrier();
    assert_int_equal(dsm_sys_fault_install(fill_from_next_node), DSM_OK);
    int next = (node.rank + 1) % node.size;
    for (unsigned p = 0; p < PAGES; p++)
        for (size_t i = 0; i < PAGE; i += 251)
            assert_int_equal(window[p * PAGE + i],
                             tt_pattern((unsigned)next, p, i));
    dsm_sys_fault_uninstall();
    assert_int_equal(handler_errors, 0);
    dsm_tp_wait_flag(&all_touched, "every page's message");
    tt_barrier();
    assert_int_equal(*(uint64_t *)node.control, PAGES);
    tt_barrier();
}

int main(void)
{
    tt_prepare();
    if (dsm_tp_am_register(DSM_TP_AM_CLIENT, AM_TOUCHED,
                           on_touched, NULL) != DSM_OK)
        return 1;
    window = mmap(NULL, PAGES * PAGE, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (window == MAP_FAILED)
        return 1;
    tt_start(&node, 4096);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_from_fault_handler),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    tt_stop(&node);
    munmap(window, PAGES * PAGE);
    return failed ? 1 : 0;
}
