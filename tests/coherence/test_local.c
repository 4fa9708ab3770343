/*
 * test_local.c - single-node behaviour of the DSM core, each case in a child
 * process (dsm_init runs once per process, and some cases must crash):
 * a fault outside the sharable space reaches the default action, heap
 * exhaustion gives NULL/ENOMEM, impossible region settings give clear
 * errors, and a single node works without dsmrun.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "dsm.h"
#include "sys_fault.h"

/* Run fn in a child with the given environment additions; returns the raw
 * wait status and the child's stderr in err. */
static int in_child(int (*fn)(void), const char *const env[], char *err,
                    size_t errlen)
{
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        for (int i = 0; env && env[i]; i += 2)
            setenv(env[i], env[i + 1], 1);
        signal(SIGSEGV, SIG_DFL);  /* cmocka's handler is not the program's */
        _exit(fn());
    }
    close(pipefd[1]);
    size_t used = 0;
    ssize_t n;
    while (used + 1 < errlen &&
           (n = read(pipefd[0], err + used, errlen - 1 - used)) > 0)
        used += (size_t)n;
    err[used] = '\0';
    close(pipefd[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static int child_fault_outside(void)
{
    if (dsm_init() != DSM_OK)
        return 3;
    volatile int *bad = (int *)16;
    *bad = 1;   /* not sharable: must die with SIGSEGV */
    return 4;
}

static void test_fault_outside_region(void **state)
{
    char err[4096];
    int status = in_child(child_fault_outside, NULL, err, sizeof err);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
}

static int child_single_node(void)
{
    if (dsm_init() != DSM_OK)
        return 3;
    dsm_sys_fault_reassert();
    if (dsm_num_nodes() != 1 || dsm_node_id() != 0)
        return 4;
    long *a = dsm_calloc(1000, sizeof *a);
    if (!a || !dsm_is_sharable(a) || dsm_is_sharable(&errno))
        return 5;
    for (int i = 0; i < 1000; i++)
        a[i] = i;
    dsm_lock_t lock;
    if (dsm_lock_init(&lock) || dsm_lock_acquire(&lock) ||
        dsm_lock_try(&lock) != DSM_ERR_BUSY || dsm_lock_release(&lock))
        return 6;
    if (dsm_barrier() || dsm_flush())
        return 7;
    long sum = 0;
    for (int i = 0; i < 1000; i++)
        sum += a[i];
    dsm_free(a);
    return sum == 999 * 1000 / 2 && dsm_finalize() == DSM_OK ? 0 : 8;
}

static void test_single_node_without_dsmrun(void **state)
{
    char err[4096];
    const char *const env[] = {"DSM_SIZE", "1", NULL};
    int status = in_child(child_single_node, env, err, sizeof err);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        fail_msg("child status %#x: %s", status, err);
}

static int child_exhaustion(void)
{
    if (dsm_init() != DSM_OK)
        return 3;
    errno = 0;
    if (dsm_malloc((size_t)2 << 20) != NULL || errno != ENOMEM)
        return 4;
    void *blocks[1024];
    int n = 0;
    while (n < 1024 && (blocks[n] = dsm_malloc(8192)) != NULL)
        n++;
    if (n == 0 || n == 1024 || errno != ENOMEM)
        return 5;
    for (int i = 0; i < n; i++)
        dsm_free(blocks[i]);
    void *again = dsm_malloc(8192);
    if (!again)
        return 6;
    if (dsm_calloc(SIZE_MAX / 2, 4) != NULL || errno != ENOMEM)
        return 7;
    return 0;
}

static void test_heap_exhaustion(void **state)
{
    char err[4096];
    const char *const env[] = {"DSM_REGION_SIZE", "1M", NULL};
    int status = in_child(child_exhaustion, env, err, sizeof err);
    if (!WIFEXITED(status) || WEXITSTATUS(status))
        fail_msg("child status %#x: %s", status, err);
}

static int child_init_only(void)
{
    dsm_status_t st = dsm_init();
    return st == DSM_OK ? 0 : -st;
}

static void test_region_collision(void **state)
{
    char err[4096], base[64];
    /* the program's own code is mapped: a region there must collide */
    snprintf(base, sizeof base, "0x%lx",
             (unsigned long)(uintptr_t)&test_region_collision & ~0xfffful);
    const char *const env[] = {"DSM_REGION_BASE", base, NULL};
    int status = in_child(child_init_only, env, err, sizeof err);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), -DSM_ERR_COLLISION);
    assert_non_null(strstr(err, "collides with the existing mapping"));
    assert_non_null(strstr(err, "test_local"));   /* names the mapping */
}

static void test_region_bad_values(void **state)
{
    char err[4096];
    const char *const unaligned[] = {"DSM_REGION_BASE", "0x200000000123", NULL};
    int status = in_child(child_init_only, unaligned, err, sizeof err);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    assert_non_null(strstr(err, "DSM_REGION_BASE"));

    const char *const garbage[] = {"DSM_REGION_SIZE", "12Q", NULL};
    status = in_child(child_init_only, garbage, err, sizeof err);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    assert_non_null(strstr(err, "DSM_REGION_SIZE=12Q"));

    /* beyond the user address space */
    const char *const huge[] = {"DSM_REGION_BASE", "0x900000000000000", NULL};
    status = in_child(child_init_only, huge, err, sizeof err);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    assert_non_null(strstr(err, "sharable region"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_outside_region),
        cmocka_unit_test(test_single_node_without_dsmrun),
        cmocka_unit_test(test_heap_exhaustion),
        cmocka_unit_test(test_region_collision),
        cmocka_unit_test(test_region_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
