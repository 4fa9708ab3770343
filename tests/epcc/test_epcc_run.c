/*
 * test_epcc_run.c - a tiny run of an EPCC-style benchmark: the command
 * given on the command line (for instance dsmrun -n 2 -t 1 syncbench_dsmomp
 * -r 2 -t 100) must exit 0 within its timeout, print its "#" header with
 * the wait policy, and print one well-formed row for every test named in
 * EPCC_ROWS (comma-separated), with finite figures.  Timing is never
 * judged.
 *
 * Layer: tests (tests/harness for running the command).  Entry point: main
 * (cmocka runner); single-threaded.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "harness.h"

#define RUN_TIMEOUT_S 25
#define FIGURES_PER_ROW 8

static char **command;

/* The line of out that starts with name followed by a blank, or NULL. */
static const char *find_row(const char *out, const char *name)
{
    size_t len = strlen(name);
    for (const char *line = out; line && *line;) {
        if (!strncmp(line, name, len) && (line[len] == ' '))
            return line;
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return NULL;
}

static void check_row(const char *out, const char *name)
{
    const char *row = find_row(out, name);
    if (!row)
        fail_msg("no row for %s in:\n%s", name, out);
    double f[FIGURES_PER_ROW];
    int n = sscanf(row + strlen(name), "%lf %lf %lf %lf %lf %lf %lf %lf",
                   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]);
    if (n != FIGURES_PER_ROW)
        fail_msg("row for %s has %d figures: %.120s", name, n, row);
    for (int i = 0; i < FIGURES_PER_ROW; i++)
        assert_true(isfinite(f[i]));
    assert_true(f[2] <= f[1] && f[1] <= f[3]);   /* min <= median <= max */
    assert_true(f[4] >= 0.0);                     /* sd */
    assert_true(f[6] >= 1.0);                     /* inner repetitions */
}

static void benchmark_prints_every_row(void **state)
{
    (void)state;
    const char *rows = getenv("EPCC_ROWS");
    assert_non_null(rows);
    static char out[DSM_HARNESS_OUTPUT_MAX];
    int status = -1;
    int rc = dsm_harness_run((const char *const *)command, NULL,
                             RUN_TIMEOUT_S, out, sizeof out, &status);
    if (rc != 0 || status != 0)
        fail_msg("run failed (rc %d, exit %d):\n%s", rc, status, out);
    if (!strstr(out, "# ") || !strstr(out, "OMP_WAIT_POLICY="))
        fail_msg("no header line in:\n%s", out);

    char names[512];
    snprintf(names, sizeof names, "%s", rows);
    for (char *save, *name = strtok_r(names, ",", &save); name;
         name = strtok_r(NULL, ",", &save))
        check_row(out, name);
}

int main(int argc, char *argv[])
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PROGRAM [ARGS...]\n", argv[0]);
        return 2;
    }
    command = argv + 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(benchmark_prints_every_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
