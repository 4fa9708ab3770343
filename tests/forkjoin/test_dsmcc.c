/*
 * test_dsmcc.c - the compiler wrapper: --help, --show and --showme (the
 * options the runtime needs, malloc interposition, compile-only commands
 * without link options), a user's -fopenmp=RUNTIME replaced, a program it
 * links needs libdsmomp and not libomp, and a program built from two
 * sources - in one command and as objects compiled with -c and linked
 * with -o, with -O, -D, -I and -W flags - runs on two nodes.
 *
 * Layer: tests, suite 'forkjoin'.  $DSMCC is the build tree's dsmcc,
 * $OMP_PROGRAM a program it linked; $READELF inspects that program;
 * $DSMRUN runs the programs built from $SRCDIR/dsmcc_{main,part}.c in a
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

/* Run argv (NULL-terminated) and return its exit status; output in out. */
static int run(const char *const argv[])
{
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

/* --show is the spelling; it prints the same command, including
 * the wrapped allocators. */
static void test_show_spelling(void **state)
{
    assert_int_equal(dsmcc("--showme", "prog.c", "-o", "prog"), 0);
    char showme[OUTPUT_MAX];
    strcpy(showme, out);
    assert_int_equal(dsmcc("--show", "prog.c", "-o", "prog"), 0);
    assert_string_equal(out, showme);
    static const char *const wrapped[] = {
        "-Wl,--wrap=malloc", "-Wl,--wrap=calloc", "-Wl,--wrap=realloc",
        "-Wl,--wrap=free", "-Wl,--wrap=posix_memalign",
        "-Wl,--wrap=aligned_alloc", "-Wl,--wrap=memalign",
    };
    for (size_t i = 0; i < sizeof wrapped / sizeof *wrapped; i++) {
        if (!strstr(out, wrapped[i]))
            fail_msg("dsmcc --show lacks %s: %s", wrapped[i], out);
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

static char tmpdir[] = "/tmp/test_dsmcc.XXXXXX";
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
    const char *src = getenv("SRCDIR");
    if (!src || !mkdtemp(tmpdir))
        return -1;
    snprintf(src_main, sizeof src_main, "%s/dsmcc_main.c", src);
    snprintf(src_part, sizeof src_part, "%s/dsmcc_part.c", src);
    snprintf(include_flag, sizeof include_flag, "-I%s", src);
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

/* Run a program dsmcc built on 2 nodes x 1 thread: exit 0 and the sum. */
static void expect_runs(const char *program)
{
    const char *argv[] = {env_path("DSMRUN"), "-n", "2", "-t", "1", program,
                          NULL};
    if (run(argv) != 0)
        fail_msg("%s failed: %s", program, out);
    assert_non_null(strstr(out, "sum of squares 2664667000"));
}

static void test_several_sources_one_command(void **state)
{
    const char *argv[] = {"/bin/sh", env_path("DSMCC"), "-O2", "-Wall",
                          "-Werror", "-DCOUNT=2000", include_flag, src_main,
                          src_part, "-o", in_tmp("one_command"), NULL};
    if (run(argv) != 0)
        fail_msg("dsmcc failed: %s", out);
    expect_runs(in_tmp("one_command"));
}

static void test_compile_then_link(void **state)
{
    const char *part[] = {"/bin/sh", env_path("DSMCC"), "-c", "-O1", "-g",
                          include_flag, src_part, "-o", in_tmp("part.o"),
                          NULL};
    if (run(part) != 0)
        fail_msg("dsmcc -c failed: %s", out);
    const char *main_obj[] = {"/bin/sh", env_path("DSMCC"), "-c",
                              "-DCOUNT=2000", include_flag, "-Wextra",
                              src_main, "-o", in_tmp("main.o"), NULL};
    if (run(main_obj) != 0)
        fail_msg("dsmcc -c failed: %s", out);
    const char *link[] = {"/bin/sh", env_path("DSMCC"), in_tmp("main.o"),
                          in_tmp("part.o"), "-o", in_tmp("from_objects"),
                          "-lm", NULL};
    if (run(link) != 0)
        fail_msg("dsmcc link failed: %s", out);
    expect_runs(in_tmp("from_objects"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_showme_link),
        cmocka_unit_test(test_showme_compile_only),
        cmocka_unit_test(test_links_libdsmomp_only),
        cmocka_unit_test(test_show_spelling),
        cmocka_unit_test(test_several_sources_one_command),
        cmocka_unit_test(test_compile_then_link),
    };
    return cmocka_run_group_tests_name("dsmcc", tests, setup_sources,
                                       remove_tmpdir);
}
