/*
 * test_exit.c - a job's exit status is the program's: main returning N,
 * or exit(N) called from node 0's serial code, ends the job with N, and
 * node 0's output is complete, its destructors' included.
 *
 * Layer: tests, suite 'forkjoin'.  Runs dsmrun ($DSMRUN) with omp_exit
 * ($OMP_EXIT) through the harness, one layout per test (argv[1], e.g.
 * "2x1").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

enum { RUN_TIMEOUT_S = 20, OUTPUT_MAX = 8192 };

static char nodes[8], threads[8];

static const char *env_path(const char *name)
{
    const char *path = getenv(name);
    assert_non_null(path);
    return path;
}

static void run_expecting(const char *mode, const char *status_text,
                          int status, const char *line)
{
    const char *argv[] = {env_path("DSMRUN"), "-n", nodes, "-t", threads,
                          env_path("OMP_EXIT"), mode, status_text, NULL};
    char out[OUTPUT_MAX];
    int exit_status = -1;
    assert_int_equal(dsm_harness_run(argv, NULL, RUN_TIMEOUT_S, out,
                                     sizeof out, &exit_status), 0);
    print_message("%s", out);
    assert_int_equal(exit_status, status);
    assert_non_null(strstr(out, line));
    assert_non_null(strstr(out, "node 0's destructor ran"));
}

static void test_return_from_main(void **state)
{
    run_expecting("return", "3", 3, "returning 3 after a team of");
}

static void test_exit_from_serial_code(void **state)
{
    run_expecting("exit", "5", 5, "leaving with 5 after a team of");
}

static void test_return_zero(void **state)
{
    run_expecting("return", "0", 0, "returning 0 after a team of");
}

int main(int argc, char **argv)
{
    if (argc != 2 || sscanf(argv[1], "%7[0-9]x%7[0-9]", nodes, threads) != 2) {
        fprintf(stderr, "usage: test_exit NODESxTHREADS\n");
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_return_from_main),
        cmocka_unit_test(test_exit_from_serial_code),
        cmocka_unit_test(test_return_zero),
    };
    return cmocka_run_group_tests_name("forkjoin exit status", tests, NULL,
                                       NULL);
}
