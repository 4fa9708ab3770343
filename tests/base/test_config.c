/*
 * test_config.c - unit tests of the base layer: number and address parsing,
 * the DSM_* environment, status strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base_config.h"

static void test_parse_size(void **state)
{
    uint64_t v;
    assert_int_equal(dsm_parse_size("4096", &v), DSM_OK);
    assert_int_equal(v, 4096);
    assert_int_equal(dsm_parse_size("16G", &v), DSM_OK);
    assert_int_equal(v, (uint64_t)16 << 30);
    assert_int_equal(dsm_parse_size("0x200000000000", &v), DSM_OK);
    assert_int_equal(v, 0x200000000000ull);
    assert_int_equal(dsm_parse_size("2k", &v), DSM_OK);
    assert_int_equal(v, 2048);
    assert_int_equal(dsm_parse_size("", &v), DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_size("-1", &v), DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_size("12Q", &v), DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_size("1GB", &v), DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_size("99999999999T", &v), DSM_ERR_INVALID);
}

static void test_parse_int_range(void **state)
{
    long v;
    assert_int_equal(dsm_parse_int_range("3", 1, 10, &v), DSM_OK);
    assert_int_equal(v, 3);
    assert_int_equal(dsm_parse_int_range("0", 1, 10, &v), DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_int_range("11", 1, 10, &v), DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_int_range("abc", 1, 10, &v), DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_int_range("3x", 1, 10, &v), DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_int_range(" 3", 1, 10, &v), DSM_ERR_INVALID);
}

static void test_parse_hostport(void **state)
{
    char host[64];
    uint16_t port;
    assert_int_equal(dsm_parse_hostport("127.0.0.1:4000", host, sizeof host,
                                        &port), DSM_OK);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 4000);
    assert_int_equal(dsm_parse_hostport("node7:1", host, sizeof host, &port),
                     DSM_OK);
    assert_int_equal(dsm_parse_hostport(":4000", host, sizeof host, &port),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_hostport("host:0", host, sizeof host, &port),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_hostport("host:70000", host, sizeof host,
                                        &port), DSM_ERR_INVALID);
    assert_int_equal(dsm_parse_hostport("host", host, sizeof host, &port),
                     DSM_ERR_INVALID);
}

static void clear_env(void)
{
    static const char *const vars[] = {
        "DSM_SIZE", "DSM_RANK", "DSM_THREADS", "DSM_RENDEZVOUS",
        "DSM_RENDEZVOUS_FD", "DSM_TOKEN", "DSM_TOKEN_FILE", "DSM_REGION_BASE",
        "DSM_REGION_SIZE", "DSM_STACK_SIZE", "DSM_STATS", "DSM_STATS_FILE",
        "DSM_TIMEOUT", "DSM_LOG_LEVEL", "DSM_PROGRESS_THREAD",
        "DSM_UCX_ERR_MODE", "DSM_SSH", "DSM_INTERFACE", "DSM_PASS_ENV",
        "DSM_HOSTFILE", NULL};
    for (int i = 0; vars[i]; i++)
        unsetenv(vars[i]);
}

static void test_config_defaults(void **state)
{
    clear_env();
    assert_int_equal(dsm_config_load(), DSM_OK);
    const dsm_config_t *c = dsm_config();
    assert_int_equal(c->rank, 0);
    assert_int_equal(c->size, 1);
    assert_int_equal(c->threads, 1);
    assert_int_equal(c->region_base, DSM_DEFAULT_REGION_BASE);
    assert_int_equal(c->region_size, DSM_DEFAULT_REGION_SIZE);
    assert_int_equal(c->timeout_ms, DSM_DEFAULT_TIMEOUT_S * 1000);
    assert_int_equal(c->stats, DSM_STATS_OFF);
}

static void test_config_job(void **state)
{
    clear_env();
    setenv("DSM_SIZE", "4", 1);
    setenv("DSM_RANK", "3", 1);
    setenv("DSM_RENDEZVOUS", "10.1.2.3:5555", 1);
    setenv("DSM_TOKEN", "abcdef", 1);
    setenv("DSM_STATS", "json", 1);
    setenv("DSM_TIMEOUT", "5", 1);
    assert_int_equal(dsm_config_load(), DSM_OK);
    const dsm_config_t *c = dsm_config();
    assert_int_equal(c->size, 4);
    assert_int_equal(c->rank, 3);
    assert_string_equal(c->rendezvous_host, "10.1.2.3");
    assert_int_equal(c->rendezvous_port, 5555);
    assert_string_equal(c->token, "abcdef");
    assert_int_equal(c->stats, DSM_STATS_JSON);
    assert_int_equal(c->timeout_ms, 5000);
}

static void test_config_errors(void **state)
{
    clear_env();
    setenv("DSM_SIZE", "2", 1);          /* no rendezvous, no token */
    assert_int_equal(dsm_config_load(), DSM_ERR_INVALID);
    setenv("DSM_RENDEZVOUS", "h:1", 1);
    assert_int_equal(dsm_config_load(), DSM_ERR_INVALID);   /* no token */
    setenv("DSM_TOKEN", "t", 1);
    assert_int_equal(dsm_config_load(), DSM_OK);
    setenv("DSM_RANK", "2", 1);          /* rank out of range */
    assert_int_equal(dsm_config_load(), DSM_ERR_INVALID);
    clear_env();
    setenv("DSM_STATS", "yes", 1);
    assert_int_equal(dsm_config_load(), DSM_ERR_INVALID);
    clear_env();
    setenv("DSM_LOG_LEVEL", "loud", 1);
    assert_int_equal(dsm_config_load(), DSM_ERR_INVALID);
    clear_env();
    setenv("DSM_UCX_ERR_MODE", "sometimes", 1);
    assert_int_equal(dsm_config_load(), DSM_ERR_INVALID);
    clear_env();
}

static void test_config_ucx_err_mode(void **state)
{
    static const struct {
        const char *text;
        dsm_ucx_err_mode_t mode;
    } cases[] = {{"", DSM_UCX_ERR_AUTO}, {"auto", DSM_UCX_ERR_AUTO},
                 {"peer", DSM_UCX_ERR_PEER}, {"none", DSM_UCX_ERR_NONE}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        clear_env();
        setenv("DSM_UCX_ERR_MODE", cases[i].text, 1);
        assert_int_equal(dsm_config_load(), DSM_OK);
        assert_int_equal(dsm_config()->ucx_err_mode, cases[i].mode);
    }
    clear_env();
}

static void test_launcher_config(void **state)
{
    dsm_launcher_config_t c;
    clear_env();
    assert_int_equal(dsm_launcher_config_load(&c), DSM_OK);
    assert_string_equal(c.ssh_command, DSM_DEFAULT_SSH_COMMAND);
    assert_string_equal(c.interface, "");
    assert_string_equal(c.pass_env, "");
    assert_string_equal(c.hostfile, "");
    setenv("DSM_SSH", "ssh -p 2222", 1);
    setenv("DSM_INTERFACE", "eth1", 1);
    setenv("DSM_PASS_ENV", "A,B", 1);
    setenv("DSM_HOSTFILE", "/etc/hosts.dsm", 1);
    assert_int_equal(dsm_launcher_config_load(&c), DSM_OK);
    assert_string_equal(c.ssh_command, "ssh -p 2222");
    assert_string_equal(c.interface, "eth1");
    assert_string_equal(c.pass_env, "A,B");
    assert_string_equal(c.hostfile, "/etc/hosts.dsm");
    char long_name[200];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    setenv("DSM_INTERFACE", long_name, 1);   /* longer than an interface */
    assert_int_equal(dsm_launcher_config_load(&c), DSM_ERR_INVALID);
    assert_string_equal(c.interface, "eth1");   /* untouched on error */
    clear_env();
}

/* The token file must be private to its owner (doc/reliability.md). */
static void test_token_file_private(void **state)
{
    char path[] = "/tmp/dsm-token-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "secret\n", 7), 7);
    close(fd);
    clear_env();
    setenv("DSM_TOKEN_FILE", path, 1);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(dsm_config_load(), DSM_OK);
    assert_string_equal(dsm_config()->token, "secret");
    assert_int_equal(chmod(path, 0640), 0);   /* group may read it */
    dsm_status_t group_readable = dsm_config_load();
    assert_int_equal(chmod(path, 0604), 0);   /* anyone may read it */
    dsm_status_t world_readable = dsm_config_load();
    unlink(path);
    clear_env();
    assert_int_equal(group_readable, DSM_ERR_INVALID);
    assert_int_equal(world_readable, DSM_ERR_INVALID);
}

static void test_status_strings(void **state)
{
    for (int s = 0; s >= -11; s--)
        assert_non_null(dsm_status_string((dsm_status_t)s));
    assert_string_equal(dsm_status_string(DSM_OK), "success");
    assert_string_equal(dsm_status_string((dsm_status_t)-99), "unknown status");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_parse_int_range),
        cmocka_unit_test(test_parse_hostport),
        cmocka_unit_test(test_config_defaults),
        cmocka_unit_test(test_config_job),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_token_file_private),
        cmocka_unit_test(test_config_ucx_err_mode),
        cmocka_unit_test(test_launcher_config),
        cmocka_unit_test(test_status_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
