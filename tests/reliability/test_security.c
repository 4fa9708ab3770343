/*
 * test_security.c - the job's token stays secret and the rendezvous port
 * listens only where it should.
 *
 * Layer: tests, suite 'reliability'.  Runs dsmrun ($DSMRUN) with
 * node_failure ($NODE_FAILURE) and node_tp_failure ($NODE_TP_FAILURE, whose
 * "absent" mode keeps node 0 listening for a node that never comes).  The
 * case to run is argv[1].  That only processes presenting the token join is
 * tested by tests/transport's foreign_clients.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

enum {
    START_TIMEOUT_S = 30,
    RUN_TIMEOUT_S = 60,
    OUTPUT_MAX = 65536,
};

static void end_job(dsm_harness_proc_t *proc, char *out, size_t len)
{
    kill(proc->pid, SIGTERM);
    int status;
    assert_int_equal(dsm_harness_wait(proc, RUN_TIMEOUT_S, out, len, &status),
                     0);
}

/* Whether any process's command line contains text. */
static pid_t command_line_with(const char *text)
{
    DIR *proc = opendir("/proc");
    assert_non_null(proc);
    struct dirent *e;
    pid_t found = 0;
    while (!found && (e = readdir(proc)) != NULL) {
        char path[300], line[8192];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(line, 1, sizeof line - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i++)
            if (line[i] == '\0')
                line[i] = ' ';
        line[n] = '\0';
        if (strstr(line, text))
            found = (pid_t)atol(e->d_name);
    }
    closedir(proc);
    return found;
}

static void test_token_not_visible(void **state)
{
    (void)state;
    const char *dsmrun = getenv("DSMRUN"), *node = getenv("NODE_FAILURE");
    assert_non_null(dsmrun);
    assert_non_null(node);
    const char *argv[] = {dsmrun, "-v", "-n", "2", node, "compute", NULL};
    dsm_harness_proc_t proc;
    assert_int_equal(dsm_harness_spawn(argv, NULL, &proc), 0);
    pid_t pids[2];
    for (int rank = 0; rank < 2; rank++)
        assert_int_equal(dsm_harness_await_node_pid(&proc, rank,
                                                    START_TIMEOUT_S,
                                                    &pids[rank]), 0);
    char token[256];
    assert_int_equal(dsm_harness_proc_env(pids[0], "DSM_TOKEN", token,
                                          sizeof token), 0);
    assert_int_equal(strlen(token), 32);   /* control: we know the secret */
    pid_t shown = command_line_with(token);
    /* the environment of a process is readable by its owner only */
    struct stat st;
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/environ", (long)pids[1]);
    assert_int_equal(stat(path, &st), 0);
    char out[OUTPUT_MAX];
    end_job(&proc, out, sizeof out);
    printf("%s", out);
    if (shown)
        fail_msg("process %ld has the token on its command line",
                 (long)shown);
    assert_int_equal(st.st_mode & 077, 0);
    assert_null(strstr(out, token));
}

/* The inodes of pid's sockets (at most max); returns how many. */
static int sockets_of(pid_t pid, unsigned long *inodes, int max)
{
    char dir_path[64];
    snprintf(dir_path, sizeof dir_path, "/proc/%ld/fd", (long)pid);
    DIR *dir = opendir(dir_path);
    if (!dir)
        return 0;
    int n = 0;
    struct dirent *e;
    while (n < max && (e = readdir(dir)) != NULL) {
        char path[320], target[64];
        snprintf(path, sizeof path, "%s/%s", dir_path, e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        if (sscanf(target, "socket:[%lu]", &inodes[n]) == 1)
            n++;
    }
    closedir(dir);
    return n;
}

/* Counts the listening sockets among inodes, on port (0: any port): on
 * 127.0.0.1, elsewhere. */
static void count_listening(const unsigned long *inodes, int count,
                            unsigned port, int *loopback, int *elsewhere)
{
    const char *tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    *loopback = *elsewhere = 0;
    for (int t = 0; t < 2; t++) {
        FILE *f = fopen(tables[t], "r");
        if (!f)
            continue;
        char line[512];
        if (!fgets(line, sizeof line, f)) {
            fclose(f);
            continue;
        }
        while (fgets(line, sizeof line, f)) {
            char local[64], remote[64], st[8];
            unsigned long inode;
            if (sscanf(line, " %*d: %63s %63s %7s %*s %*s %*s %*s %*s %lu",
                       local, remote, st, &inode) != 4 || strcmp(st, "0A"))
                continue;
            const char *colon = strchr(local, ':');
            if (port && (!colon || strtoul(colon + 1, NULL, 16) != port))
                continue;
            for (int i = 0; i < count; i++)
                if (inodes[i] == inode) {
                    if (!strncmp(local, "0100007F:", 9))
                        ++*loopback;
                    else
                        ++*elsewhere;
                    break;   /* dsmrun and node 0 may share the socket */
                }
        }
        fclose(f);
    }
}

static void test_rendezvous_listens_on_loopback_only(void **state)
{
    (void)state;
    const char *dsmrun = getenv("DSMRUN"), *node = getenv("NODE_TP_FAILURE");
    assert_non_null(dsmrun);
    assert_non_null(node);
    /* node 1 never joins: node 0 keeps listening until we end the job */
    const char *argv[] = {dsmrun, "-v", "-n", "2", node, "absent", "1",
                          NULL};
    const char *env[] = {"DSM_TIMEOUT=30", NULL};
    dsm_harness_proc_t proc;
    assert_int_equal(dsm_harness_spawn(argv, env, &proc), 0);
    assert_int_equal(dsm_harness_await_output(&proc, "dsmrun: node 1 pid ",
                                              START_TIMEOUT_S), 0);
    const char *line = strstr(proc.out, "dsmrun: node 0 pid ");
    assert_non_null(line);
    pid_t node0 = (pid_t)atol(line + strlen("dsmrun: node 0 pid "));
    unsigned long inodes[256];
    int count = sockets_of(node0, inodes, 128);
    count += sockets_of(proc.pid, inodes + count, 128);
    int loopback, elsewhere;
    const char *at = strstr(proc.out, " rendezvous 127.0.0.1:");
    unsigned port = at ? (unsigned)atoi(at + strlen(" rendezvous 127.0.0.1:"))
                       : 0;
    count_listening(inodes, count, port, &loopback, &elsewhere);
    char out[OUTPUT_MAX];
    kill(proc.pid, SIGKILL);   /* node 0 ignores SIGTERM in this program */
    dsm_harness_wait(&proc, RUN_TIMEOUT_S, out, sizeof out, NULL);
    printf("listening sockets of node 0 and dsmrun: %d on 127.0.0.1, %d "
           "elsewhere\n", loopback, elsewhere);
    assert_true(port > 0);
    assert_int_equal(loopback, 1);   /* control: the rendezvous socket */
    assert_int_equal(elsewhere, 0);
}

/* After the wire-up the rendezvous port is closed.  (UCX's TCP transport
 * has listeners of its own on every interface UCX_NET_DEVICES allows:
 * counted and printed, see doc/reliability.md.) */
static void test_no_listener_after_wireup(void **state)
{
    (void)state;
    const char *dsmrun = getenv("DSMRUN"), *node = getenv("NODE_FAILURE");
    const char *argv[] = {dsmrun, "-v", "-n", "3", node, "compute", NULL};
    dsm_harness_proc_t proc;
    assert_int_equal(dsm_harness_spawn(argv, NULL, &proc), 0);
    pid_t pids[3];
    unsigned long inodes[512];
    int count = 0;
    for (int rank = 0; rank < 3; rank++)
        assert_int_equal(dsm_harness_await_node_pid(&proc, rank,
                                                    START_TIMEOUT_S,
                                                    &pids[rank]), 0);
    const char *at = strstr(proc.out, " rendezvous 127.0.0.1:");
    unsigned port = at ? (unsigned)atoi(at + strlen(" rendezvous 127.0.0.1:"))
                       : 0;
    for (int rank = 0; rank < 3; rank++)
        count += sockets_of(pids[rank], inodes + count, 128);
    count += sockets_of(proc.pid, inodes + count, 128);
    int loopback, elsewhere, ucx_loopback, ucx_elsewhere;
    count_listening(inodes, count, port, &loopback, &elsewhere);
    count_listening(inodes, count, 0, &ucx_loopback, &ucx_elsewhere);
    char out[OUTPUT_MAX];
    end_job(&proc, out, sizeof out);
    printf("after wire-up: %d listening on the rendezvous port %u; %d other "
           "listening sockets (UCX tcp) on 127.0.0.1, %d elsewhere\n",
           loopback + elsewhere, port, ucx_loopback, ucx_elsewhere);
    assert_true(port > 0);    /* control: dsmrun -v named the port */
    assert_true(count > 0);   /* control: the nodes do have sockets */
    assert_int_equal(loopback + elsewhere, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_not_visible),
        cmocka_unit_test(test_rendezvous_listens_on_loopback_only),
        cmocka_unit_test(test_no_listener_after_wireup),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests_name("security", tests, NULL, NULL);
}
