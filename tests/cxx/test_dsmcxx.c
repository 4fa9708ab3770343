/*
 * test_dsmcxx.c - the C++ compiler wrapper dsmc++: --help, --show and
 * --showme (what dsmcc adds, plus the program side of the C++ support,
 * the wrapped guard and exit registration functions and
 * -fnoopenmp-use-tls), compile-only commands without link options,
 * -fno-threadsafe-statics refused with a message naming it, a program it
 * links needs libdsmomp and libstdc++ and not libomp, and a program made
 * of a C++ and a C source - in one command (-x c), and as objects
 * compiled by dsmc++ and dsmcc and linked by dsmc++ - runs on two nodes.
 *
 * Layer: tests, suite 'cxx'.  $DSMCXX is the build tree's dsmc++,
 * $DSMCC its dsmcc, $READELF inspects programs, $DSMRUN runs the programs
 * built from $SRCDIR/dsmcxx_main.cpp and $PARTDIR/dsmcc_part.c in a
 * temporary directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

enum { RUN_TIMEOUT_S = 60, OUTPUT_MAX = 16384 };

static char out[OUTPUT_MAX];

static const char *env_path(const char *name)
{
    const char *path = getenv(name);
    assert_non_null(path);
    return path;
}

/* Run argv (NULL-terminated) and return its exit status; output in out. */
static int run(const char *const argv[])
{
    int status = -1;
    assert_int_equal(dsm_harness_run(argv, NULL, RUN_TIMEOUT_S, out,
                                     sizeof out, &status), 0);
    return status;
}

/* Run sh DSMCXX args... and return its exit status; output in out. */
static int dsmcxx(const char *a1, const char *a2, const char *a3,
                  const char *a4)
{
    const char *argv[] = {"/bin/sh", env_path("DSMCXX"), a1, a2, a3, a4,
                          NULL};
    return run(argv);
}

static void expect_all(const char *const *needed, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strstr(out, needed[i]))
            fail_msg("dsmc++ --show lacks %s: %s", needed[i], out);
}

static void test_help(void **state)
{
    assert_int_equal(dsmcxx("--help", NULL, NULL, NULL), 0);
    assert_non_null(strstr(out, "usage: dsmc++"));
    assert_non_null(strstr(out, "--showme"));
}

static void test_show_link(void **state)
{
    assert_int_equal(dsmcxx("--show", "prog.cpp", "-o", "prog"), 0);
    static const char *const needed[] = {
        "clang++", "-fopenmp", "-mllvm -openmp-opt-disable",
        "-fnoopenmp-use-tls", "-ldsmomp", "-Wl,--wrap=main",
        "-Wl,--export-dynamic-symbol=main", "-Wl,-z,now", "-Wl,-z,relro",
        "-Wl,--wrap=malloc", "-Wl,--wrap=free",
        "-Wl,--wrap=__cxa_guard_acquire", "-Wl,--wrap=__cxa_guard_release",
        "-Wl,--wrap=__cxa_guard_abort", "-Wl,--wrap=__cxa_atexit",
        "-Wl,--wrap=pthread_mutex_lock", "-Wl,--wrap=syscall",
        "cxx_start.o", "cxx_new.o", "cxx_terminate.o", "prog.cpp -o prog",
    };
    expect_all(needed, sizeof needed / sizeof *needed);
    char show[OUTPUT_MAX];
    strcpy(show, out);
    assert_int_equal(dsmcxx("--showme", "prog.cpp", "-o", "prog"), 0);
    assert_string_equal(out, show);
}

static void test_show_compile_only(void **state)
{
    assert_int_equal(dsmcxx("--show", "-c", "prog.cc", "-fopenmp=libgomp"),
                     0);
    assert_non_null(strstr(out, "-fopenmp "));
    assert_non_null(strstr(out, "-fnoopenmp-use-tls"));
    assert_null(strstr(out, "libgomp"));
    assert_null(strstr(out, "-ldsmomp"));
    assert_null(strstr(out, "--wrap"));
    assert_null(strstr(out, "cxx_new.o"));
}

/* The user's choice comes after dsmc++'s and wins, with a warning. */
static void test_user_tls_choice_last(void **state)
{
    assert_int_equal(dsmcxx("--show", "-c", "prog.cpp", "-fopenmp-use-tls"),
                     0);
    assert_non_null(strstr(out, "dsmc++: warning: -fopenmp-use-tls"));
    /* The warning names the flag too: look for it after dsmc++'s. */
    const char *ours = strstr(out, "-fnoopenmp-use-tls");
    assert_non_null(ours);
    assert_non_null(strstr(ours, " -fopenmp-use-tls"));
}

static void test_threadsafe_statics_refused(void **state)
{
    assert_int_not_equal(dsmcxx("-c", "prog.cpp", "-fno-threadsafe-statics",
                                NULL), 0);
    assert_non_null(strstr(out, "dsmc++: -fno-threadsafe-statics is not "
                                "supported"));
}

static char tmpdir[] = "/tmp/test_dsmcxx.XXXXXX";
static char src_main[1024], src_part[1024], include_flag[1024];

static const char *in_tmp(const char *name)
{
    static char paths[4][1100];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", tmpdir, name);
    return p;
}

static int setup_sources(void **state)
{
    const char *src = getenv("SRCDIR"), *part = getenv("PARTDIR");
    if (!src || !part || !mkdtemp(tmpdir))
        return -1;
    snprintf(src_main, sizeof src_main, "%s/dsmcxx_main.cpp", src);
    snprintf(src_part, sizeof src_part, "%s/dsmcc_part.c", part);
    snprintf(include_flag, sizeof include_flag, "-I%s", part);
    return 0;
}

static int remove_tmpdir(void **state)
{
    const char *const names[] = {"part.o", "main.o", "one_command",
                                 "from_objects"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        unlink(in_tmp(names[i]));
    return rmdir(tmpdir) == 0 ? 0 : -1;
}

/* A program dsmc++ built, on 2 nodes x 1 thread: exit 0 and the sum. */
static void expect_runs(const char *program)
{
    const char *argv[] = {env_path("DSMRUN"), "-n", "2", "-t", "1", program,
                          NULL};
    if (run(argv) != 0)
        fail_msg("%s failed: %s", program, out);
    assert_non_null(strstr(out, "sum of squares 2664667000"));
}

static void test_links_libdsmomp_and_libstdcxx(void **state)
{
    const char *build[] = {"/bin/sh", env_path("DSMCXX"), "-O2",
                           "-DCOUNT=2000", include_flag, src_main, "-x", "c",
                           src_part, "-x", "none", "-o",
                           in_tmp("one_command"), NULL};
    if (run(build) != 0)
        fail_msg("dsmc++ failed: %s", out);
    const char *readelf[] = {env_path("READELF"), "-d", in_tmp("one_command"),
                             NULL};
    assert_int_equal(run(readelf), 0);
    assert_non_null(strstr(out, "[libdsmomp.so"));
    assert_non_null(strstr(out, "[libstdc++.so"));
    assert_null(strstr(out, "[libomp"));
    assert_non_null(strstr(out, "BIND_NOW"));
    expect_runs(in_tmp("one_command"));
}

static void test_compile_then_link(void **state)
{
    const char *part[] = {"/bin/sh", env_path("DSMCC"), "-c", "-O1", "-g",
                          include_flag, src_part, "-o", in_tmp("part.o"),
                          NULL};
    if (run(part) != 0)
        fail_msg("dsmcc -c failed: %s", out);
    const char *main_obj[] = {"/bin/sh", env_path("DSMCXX"), "-c",
                              "-DCOUNT=2000", include_flag, "-Wall",
                              "-Wextra", "-Werror", "-std=c++17", src_main,
                              "-o", in_tmp("main.o"), NULL};
    if (run(main_obj) != 0)
        fail_msg("dsmc++ -c failed: %s", out);
    const char *link[] = {"/bin/sh", env_path("DSMCXX"), in_tmp("main.o"),
                          in_tmp("part.o"), "-o", in_tmp("from_objects"),
                          "-lm", NULL};
    if (run(link) != 0)
        fail_msg("dsmc++ link failed: %s", out);
    expect_runs(in_tmp("from_objects"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_show_link),
        cmocka_unit_test(test_show_compile_only),
        cmocka_unit_test(test_user_tls_choice_last),
        cmocka_unit_test(test_threadsafe_statics_refused),
        cmocka_unit_test(test_links_libdsmomp_and_libstdcxx),
        cmocka_unit_test(test_compile_then_link),
    };
    return cmocka_run_group_tests_name("dsmc++", tests, setup_sources,
                                       remove_tmpdir);
}
