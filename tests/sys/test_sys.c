/*
 * test_sys.c - unit tests of the sys layer: the memfd region with its two
 * views, window collisions, adoption of existing memory, and fault delivery
 * with the access type, the sharable-stack test the transport's entry
 * points use to leave such a stack.  Faults are provoked inside the test bodies (cmocka
 * replaces the SIGSEGV action around each test, so each test re-asserts).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys_fault.h"
#include "sys_region.h"
#include "sys_stack.h"

#define BASE ((uintptr_t)0x300000000000ull)

static void test_two_views(void **state)
{
    dsm_region_t r;
    assert_int_equal(dsm_sys_region_create(16 * DSM_PAGE_SIZE, &r), DSM_OK);
    assert_int_equal(dsm_sys_region_map_window(&r, BASE, 16 * DSM_PAGE_SIZE, 0),
                     DSM_OK);
    /* the runtime view writes, the application view reads the same bytes */
    strcpy(r.rt + 5 * DSM_PAGE_SIZE, "hello");
    assert_int_equal(dsm_sys_protect(BASE, 16 * DSM_PAGE_SIZE, DSM_PROT_READ), 0);
    assert_string_equal((char *)BASE + 5 * DSM_PAGE_SIZE, "hello");
    /* the same range again collides, and the error names the mapping */
    assert_int_equal(dsm_sys_region_map_window(&r, BASE + DSM_PAGE_SIZE,
                                               DSM_PAGE_SIZE, 0),
                     DSM_ERR_COLLISION);
    assert_int_equal(dsm_sys_region_map_window(&r, BASE + 123, DSM_PAGE_SIZE, 0),
                     DSM_ERR_INVALID);
    munmap((void *)BASE, 16 * DSM_PAGE_SIZE);
    dsm_sys_region_destroy(&r);
}

/* A stack in an application window is sharable; the runtime stack the
 * transport's entry points switch to is not (design.md, "Locks and their
 * order": handlers never run on a sharable stack). */
#define STACK_BASE ((uintptr_t)0x300200000000ull)
#define STACK_PAGES 16

static int on_rt_sharable = -1;

static void on_rt(void *arg)
{
    (void)arg;
    on_rt_sharable = dsm_sys_stack_sharable();
}

static void on_window(void *arg)
{
    int *sharable = arg;
    *sharable = dsm_sys_stack_sharable();
    dsm_sys_on_rtstack(on_rt, NULL);
}

static void test_stack_sharable(void **state)
{
    (void)state;
    int local;
    assert_false(dsm_sys_sharable(&local, sizeof local));
    assert_false(dsm_sys_stack_sharable());
    dsm_region_t r;
    assert_int_equal(dsm_sys_region_create(STACK_PAGES * DSM_PAGE_SIZE, &r),
                     DSM_OK);
    assert_int_equal(dsm_sys_region_map_window(&r, STACK_BASE,
                                               STACK_PAGES * DSM_PAGE_SIZE, 0),
                     DSM_OK);
    assert_int_equal(dsm_sys_protect(STACK_BASE, STACK_PAGES * DSM_PAGE_SIZE,
                                     DSM_PROT_RW), 0);
    assert_true(dsm_sys_sharable((void *)(STACK_BASE + 100), 8));
    assert_true(dsm_sys_sharable((void *)(STACK_BASE - 4), 8));   /* overlaps */
    assert_false(dsm_sys_sharable((void *)(STACK_BASE - 8), 8));
    assert_int_equal(dsm_sys_rtstack_thread_init(), DSM_OK);
    int sharable = -1;
    dsm_sys_run_on_stack((void *)STACK_BASE, STACK_PAGES * DSM_PAGE_SIZE,
                         on_window, &sharable);
    assert_int_equal(sharable, 1);
    assert_int_equal(on_rt_sharable, 0);
    munmap((void *)STACK_BASE, STACK_PAGES * DSM_PAGE_SIZE);
    dsm_sys_region_destroy(&r);
}

static void test_find_overlap(void **state)
{
    uintptr_t lo, hi;
    char name[256];
    uintptr_t code = (uintptr_t)&test_find_overlap;
    assert_true(dsm_sys_find_overlap(code, code + 1, &lo, &hi, name, sizeof name));
    assert_true(lo <= code && code < hi);
    assert_non_null(strstr(name, "test_sys"));
    assert_false(dsm_sys_find_overlap(BASE, BASE + 4096, &lo, &hi, name,
                                      sizeof name));
}

static char adopt_me[3 * 4096] __attribute__((aligned(4096))) = "initial";

static void test_adopt(void **state)
{
    dsm_region_t r;
    assert_int_equal(dsm_sys_region_create(4 * DSM_PAGE_SIZE, &r), DSM_OK);
    assert_int_equal(dsm_sys_region_adopt_window(&r, (uintptr_t)adopt_me,
                                                 sizeof adopt_me, DSM_PAGE_SIZE),
                     DSM_OK);
    assert_string_equal(adopt_me, "initial");          /* contents kept */
    assert_string_equal(r.rt + DSM_PAGE_SIZE, "initial");
    adopt_me[4096] = 'x';                              /* now one memory */
    assert_int_equal(r.rt[2 * DSM_PAGE_SIZE], 'x');
    dsm_sys_region_destroy(&r);
}

static dsm_region_t fault_region;
static volatile int reads, writes;

static int on_fault(uintptr_t addr, dsm_fault_access_t access)
{
    if (addr < BASE || addr >= BASE + 4 * DSM_PAGE_SIZE)
        return 0;
    uintptr_t page = addr & ~(DSM_PAGE_SIZE - 1);
    if (access == DSM_FAULT_WRITE) {
        writes++;
        dsm_sys_protect(page, DSM_PAGE_SIZE, DSM_PROT_RW);
    } else {
        reads++;
        dsm_sys_protect(page, DSM_PAGE_SIZE, DSM_PROT_READ);
    }
    return 1;
}

static void test_fault_access_type(void **state)
{
    assert_int_equal(dsm_sys_region_create(4 * DSM_PAGE_SIZE, &fault_region),
                     DSM_OK);
    assert_int_equal(dsm_sys_region_map_window(&fault_region, BASE,
                                               4 * DSM_PAGE_SIZE, 0), DSM_OK);
    assert_int_equal(dsm_sys_fault_install(on_fault), DSM_OK);
    dsm_sys_fault_reassert();
    volatile char *p = (volatile char *)BASE;
    char c = p[0];                        /* read fault */
    (void)c;
    assert_int_equal(reads, 1);
    p[DSM_PAGE_SIZE] = 1;                 /* write fault on an untouched page */
    assert_int_equal(writes, 1);
    assert_int_equal(reads, 1);           /* no read fault first */
    p[0] = 2;                             /* write on a read-only page */
    assert_int_equal(writes, 2);
    dsm_sys_fault_uninstall();
}

/* The fault path makes system calls that set errno (mprotect, futex,
 * poll, write); the code it interrupted must find its own errno again. */
#define ERRNO_BASE (BASE + 64 * DSM_PAGE_SIZE)

static int on_fault_clobbering(uintptr_t addr, dsm_fault_access_t access)
{
    if (addr < ERRNO_BASE || addr >= ERRNO_BASE + DSM_PAGE_SIZE)
        return 0;
    dsm_sys_protect(ERRNO_BASE, DSM_PAGE_SIZE, DSM_PROT_RW);
    errno = EBADF;
    return 1;
}

static void test_fault_keeps_errno(void **state)
{
    dsm_region_t region;
    assert_int_equal(dsm_sys_region_create(DSM_PAGE_SIZE, &region), DSM_OK);
    assert_int_equal(dsm_sys_region_map_window(&region, ERRNO_BASE,
                                               DSM_PAGE_SIZE, 0), DSM_OK);
    assert_int_equal(dsm_sys_fault_install(on_fault_clobbering), DSM_OK);
    dsm_sys_fault_reassert();
    errno = EAGAIN;
    *(volatile char *)ERRNO_BASE = 1;     /* a fault the handler takes */
    int seen = errno;
    dsm_sys_fault_uninstall();
    munmap((void *)ERRNO_BASE, DSM_PAGE_SIZE);
    dsm_sys_region_destroy(&region);
    assert_int_equal(seen, EAGAIN);
}

static void test_fault_not_ours_default_action(void **state)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);
        if (dsm_sys_fault_install(on_fault) != DSM_OK)
            _exit(3);
        *(volatile int *)32 = 1;
        _exit(4);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
}

static volatile int program_handler_ran;
static sigjmp_buf program_jump;
static void program_handler(int sig)
{
    program_handler_ran = 1;
    siglongjmp(program_jump, 1);
}

static void test_fault_not_ours_program_handler(void **state)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, program_handler);     /* the program's own, first */
        if (dsm_sys_fault_install(on_fault) != DSM_OK)
            _exit(3);
        if (sigsetjmp(program_jump, 1) == 0)
            *(volatile int *)32 = 1;
        _exit(program_handler_ran ? 0 : 5);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_views),
        cmocka_unit_test(test_find_overlap),
        cmocka_unit_test(test_stack_sharable),
        cmocka_unit_test(test_adopt),
        cmocka_unit_test(test_fault_access_type),
        cmocka_unit_test(test_fault_keeps_errno),
        cmocka_unit_test(test_fault_not_ours_default_action),
        cmocka_unit_test(test_fault_not_ours_program_handler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
