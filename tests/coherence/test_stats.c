/*
 * test_stats.c - DSM_STATS reports of a plain DSM API program: `json`
 * gives one document for the job on stdout, with a line per node holding
 * every counter, `1` one table on stderr with a column per node,
 * DSM_STATS_FILE one file written by node 0.  The counts of known
 * accesses.  Runs node_stats under dsmrun ($DSMRUN, $NODE_STATS); the
 * table's layout for OpenMP jobs is tests/report's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define OUT_MAX 65536

static char out[OUT_MAX];

static void run_job(const char *const env[])
{
    const char *argv[] = {getenv("DSMRUN"), "-n", "2", getenv("NODE_STATS"),
                          NULL};
    int status = -1;
    assert_non_null(argv[0]);
    assert_non_null(argv[3]);
    assert_int_equal(dsm_harness_run(argv, env, 60, out, sizeof out, &status), 0);
    if (status != 0)
        fail_msg("job exited %d:\n%s", status, out);
}

/* The value of "key": N in the JSON line of node `node`, or -1. */
static long long json_value(const char *text, int node, const char *key)
{
    char head[32], pat[80];
    snprintf(head, sizeof head, "{\"node\": %d,", node);
    const char *line = strstr(text, head);
    if (!line)
        return -1;
    const char *end = strchr(line, '\n');
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *at = strstr(line, pat);
    if (!at || (end && at > end))
        return -1;
    return atoll(at + strlen(pat));
}

/* With pages copied (DSM_DIRECT_READ=0): the counts of the copy path. */
static void test_json(void **state)
{
    const char *env[] = {"DSM_STATS=json", "DSM_DIRECT_READ=0", NULL};
    run_job(env);
    static const char *const keys[] = {
        "read_faults", "write_faults", "pages_fetched", "twins", "diffs_sent",
        "diff_bytes_sent", "write_notices_sent", "write_notices_received",
        "invalidations", "barriers", "lock_acquires", "messages_sent",
        "bytes_sent", "rma_gets", "rma_puts", "atomics", "pages_migrated",
        "eager_pages", "refreshes", "direct_pages", "protocol_ns"};
    for (int node = 0; node < 2; node++)
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            if (json_value(out, node, keys[k]) < 0)
                fail_msg("node %d: no \"%s\" in:\n%s", node, keys[k], out);
    /* node 1 read 4 pages from node 0 (and the page of the sharable global
     * that points to them) and wrote one of them */
    assert_true(json_value(out, 1, "pages_fetched") >= 5);
    /* the scan was read ahead: fewer gets than pages */
    assert_true(json_value(out, 1, "rma_gets") < json_value(out, 1, "pages_fetched"));
    assert_int_equal(json_value(out, 1, "twins"), 1);
    assert_int_equal(json_value(out, 1, "diffs_sent"), 1);
    /* one word, every byte changed (3 -> -1): run header (4), the word (8);
     * a fully changed run carries no byte masks */
    assert_int_equal(json_value(out, 1, "diff_bytes_sent"), 12);
    assert_int_equal(json_value(out, 0, "diff_bytes_applied"), 8);
    /* node 1 was the page's only writer in that barrier's epoch, so the
     * page moved to node 1, and node 0's final read fetched it */
    assert_int_equal(json_value(out, 1, "pages_migrated"), 1);
    assert_int_equal(json_value(out, 0, "pages_migrated"), 0);
    assert_int_equal(json_value(out, 0, "pages_fetched"), 1);
    assert_true(json_value(out, 0, "barriers") >= 2);
    assert_true(json_value(out, 1, "write_notices_sent") >= 1);
    assert_non_null(strstr(out, "\"messages\": {"));
}

/* The default on one host: node 1 reads node 0's pages through a mapping
 * of node 0's memory and copies only the page it writes. */
static void test_json_direct(void **state)
{
    const char *env[] = {"DSM_STATS=json", NULL};
    run_job(env);
    /* the 4 data pages and the sharable global's page, in one mapping or
     * a few, none copied for reading */
    assert_true(json_value(out, 1, "direct_pages") >= 5);
    assert_true(json_value(out, 1, "read_faults") <= 2);
    /* the written page: copied, twinned, diffed */
    assert_int_equal(json_value(out, 1, "pages_fetched"), 1);
    assert_int_equal(json_value(out, 1, "twins"), 1);
    assert_int_equal(json_value(out, 1, "diffs_sent"), 1);
    assert_int_equal(json_value(out, 1, "pages_migrated"), 1);
    /* node 0's last read: the page now homed at node 1, mapped */
    assert_int_equal(json_value(out, 0, "pages_fetched"), 0);
    assert_int_equal(json_value(out, 0, "direct_pages"), 1);
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *at = strstr(text, what); at; at = strstr(at + 1, what))
        n++;
    return n;
}

static void test_text(void **state)
{
    const char *env[] = {"DSM_STATS=1", NULL};
    run_job(env);
    /* one table, node 0's, with both nodes' columns */
    assert_int_equal(count_of(out, "dsm statistics: 2 nodes"), 1);
    assert_non_null(strstr(out, "node 0      node 1       total"));
    assert_int_equal(count_of(out, "\npages_fetched  "), 1);
    assert_int_equal(count_of(out, "\nmsg barrier_arrive  "), 1);
    assert_null(strstr(out, "dsm stats node"));
}

static void test_file(void **state)
{
    char dir[] = "/tmp/dsm-stats-XXXXXX", pattern[128], env_file[160];
    assert_non_null(mkdtemp(dir));
    snprintf(pattern, sizeof pattern, "%s/node%%d.json", dir);
    snprintf(env_file, sizeof env_file, "DSM_STATS_FILE=%s", pattern);
    const char *env[] = {"DSM_STATS=json", env_file, NULL};
    run_job(env);
    /* node 0 writes the job's document ("%d" becomes 0), nobody else */
    char path[160], text[OUT_MAX];
    snprintf(path, sizeof path, "%s/node1.json", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/node0.json", dir);
    assert_int_equal(dsm_harness_read_file(path, text, sizeof text), 0);
    assert_int_equal(count_of(text, "{\"version\""), 1);
    for (int node = 0; node < 2; node++)
        assert_true(json_value(text, node, "barriers") >= 2);
    assert_null(strstr(out, "{\"version\""));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_direct),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
