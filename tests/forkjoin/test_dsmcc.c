/*
 * test_dsmcc.c - the compiler wrapper: --help, --showme (the options the
 * runtime needs, compile-only commands without link options), a user's
 * -fopenmp=RUNTIME replaced, and a program it links needs libdsmomp and
 * not libomp.
 *
 * Layer: tests, suite 'forkjoin'.  $DSMCC is the build tree's dsmcc,
 * $OMP_PROGRAM a program it linked; $READELF inspects that program.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

enum { RUN_TIMEOUT_S = 20, OUTPUT_MAX = 16384 };

static char out[OUTPUT_MAX];

static const char *env_path(const char *name)
{
    const char *path = getenv(name);
    assert_non_null(path);
    return path;
}

/* Run sh DSMCC args... and return its exit status; output in out. */
static int dsmcc(const char *a1, const char *a2, const char *a3,
                 const char *a4)
{
    const char *argv[] = {"/bin/sh", env_path("DSMCC"), a1, a2, a3, a4,
                          NULL};
    int status = -1;
    assert_int_equal(dsm_harness_run(argv, NULL, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);
    return status;
}

static void test_help(void **state)
{
    assert_int_equal(dsmcc("--help", NULL, NULL, NULL), 0);
    assert_non_null(strstr(out, "usage: dsmcc"));
    assert_non_null(strstr(out, "--showme"));
}

static void test_showme_link(void **state)
{
    assert_int_equal(dsmcc("--showme", "prog.c", "-o", "prog"), 0);
    static const char *const needed[] = {
        "-fopenmp", "-mllvm -openmp-opt-disable", "-ldsmomp",
        "-Wl,--wrap=main", "-Wl,--export-dynamic-symbol=main",
        "-Wl,-z,now", "-Wl,-z,relro", "-Wl,-rpath,", "prog.c -o prog",
    };
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++) {
        if (!strstr(out, needed[i]))
            fail_msg("dsmcc --showme lacks %s: %s", needed[i], out);
    }
}

static void test_showme_compile_only(void **state)
{
    assert_int_equal(dsmcc("--showme", "-c", "prog.c", "-fopenmp=libgomp"),
                     0);
    assert_non_null(strstr(out, "-fopenmp "));
    assert_null(strstr(out, "libgomp"));
    assert_null(strstr(out, "-ldsmomp"));
    assert_null(strstr(out, "--wrap=main"));
}

static void test_links_libdsmomp_only(void **state)
{
    const char *argv[] = {env_path("READELF"), "-d",
                          env_path("OMP_PROGRAM"), NULL};
    int status = -1;
    assert_int_equal(dsm_harness_run(argv, NULL, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "[libdsmomp.so"));
    assert_null(strstr(out, "[libomp"));
    assert_non_null(strstr(out, "BIND_NOW"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_showme_link),
        cmocka_unit_test(test_showme_compile_only),
        cmocka_unit_test(test_links_libdsmomp_only),
    };
    return cmocka_run_group_tests_name("dsmcc", tests, NULL, NULL);
}
