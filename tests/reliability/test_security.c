/*
 * test_security.c - the job's token stays secret, and the rendezvous port
 * and UCX's TCP listeners listen only where they should.
 *
 * Layer: tests, suite 'reliability'.  Runs dsmrun ($DSMRUN) with
 * node_failure ($NODE_FAILURE) and node_tp_failure ($NODE_TP_FAILURE, whose
 * "absent" mode keeps node 0 listening for a node that never comes).  The
 * case to run is argv[1].  That only processes presenting the token join is
 * tested by tests/transport's foreign_clients.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
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

/* Whether a local address of /proc/net/tcp or tcp6 is loopback:
 * 127.0.0.0/8, ::1, or ::ffff:127.0.0.0/104 (hex words as the kernel
 * prints them, in host byte order on x86). */
static int is_loopback(const char *local)
{
    return (strlen(local) > 8 && local[8] == ':' &&
            !strncmp(local + 6, "7F", 2)) ||
           !strncmp(local, "00000000000000000000000001000000:", 33) ||
           (!strncmp(local, "0000000000000000FFFF0000", 24) &&
            !strncmp(local + 30, "7F:", 3));
}

/* Counts the listening sockets among inodes, on port (0: any port): on a
 * loopback address, elsewhere. */
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
                    if (is_loopback(local))
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

typedef struct job_sockets {
    unsigned port;             /* the rendezvous port dsmrun -v named */
    int sockets;               /* sockets of the job's processes */
    int on_port;               /* listening on the rendezvous port */
    int loopback, elsewhere;   /* listening on any port: loopback, not */
    char devices[3][256];      /* each node's UCX_NET_DEVICES */
    char out[OUTPUT_MAX];
} job_sockets_t;

/* A 3-node job on this machine with extra_env: once every node is wired
 * up, the sockets of its nodes and of dsmrun, and the nodes'
 * UCX_NET_DEVICES; then the job ends (its output in j->out). */
static void job_sockets(const char *const extra_env[], job_sockets_t *j)
{
    const char *dsmrun = getenv("DSMRUN"), *node = getenv("NODE_FAILURE");
    assert_non_null(dsmrun);
    assert_non_null(node);
    const char *argv[] = {dsmrun, "-v", "-n", "3", node, "compute", NULL};
    dsm_harness_proc_t proc;
    assert_int_equal(dsm_harness_spawn(argv, extra_env, &proc), 0);
    pid_t pids[3];
    unsigned long inodes[512];
    int count = 0;
    for (int rank = 0; rank < 3; rank++)
        assert_int_equal(dsm_harness_await_node_pid(&proc, rank,
                                                    START_TIMEOUT_S,
                                                    &pids[rank]), 0);
    const char *at = strstr(proc.out, " rendezvous 127.0.0.1:");
    j->port = at ? (unsigned)atoi(at + strlen(" rendezvous 127.0.0.1:")) : 0;
    for (int rank = 0; rank < 3; rank++) {
        count += sockets_of(pids[rank], inodes + count, 128);
        if (dsm_harness_proc_env(pids[rank], "UCX_NET_DEVICES",
                                 j->devices[rank],
                                 sizeof j->devices[rank]) != 0)
            strcpy(j->devices[rank], "(not set)");
    }
    count += sockets_of(proc.pid, inodes + count, 128);
    j->sockets = count;
    int port_loopback, port_elsewhere;
    count_listening(inodes, count, j->port, &port_loopback, &port_elsewhere);
    j->on_port = port_loopback + port_elsewhere;
    count_listening(inodes, count, 0, &j->loopback, &j->elsewhere);
    end_job(&proc, j->out, sizeof j->out);
}

/* After the wire-up the rendezvous port is closed.  (UCX's TCP transport
 * has listeners of its own on every interface UCX_NET_DEVICES allows:
 * counted and printed; test_ucx_listens_on_loopback_only checks them.) */
static void test_no_listener_after_wireup(void **state)
{
    (void)state;
    job_sockets_t *j = malloc(sizeof *j);
    assert_non_null(j);
    job_sockets(NULL, j);
    printf("after wire-up: %d listening on the rendezvous port %u; %d other "
           "listening sockets (UCX tcp) on loopback, %d elsewhere\n",
           j->on_port, j->port, j->loopback, j->elsewhere);
    assert_true(j->port > 0);      /* control: dsmrun -v named the port */
    assert_true(j->sockets > 0);   /* control: the nodes do have sockets */
    assert_int_equal(j->on_port, 0);
    free(j);
}

/* Whether this machine has an IPv4 address outside 127.0.0.0/8 on an
 * interface that is up (where an unrestricted UCX would listen). */
static int has_other_address(void)
{
    struct ifaddrs *list;
    int found = 0;
    if (getifaddrs(&list) != 0)
        return 0;
    for (struct ifaddrs *a = list; a; a = a->ifa_next)
        if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET &&
            (a->ifa_flags & IFF_UP) &&
            (ntohl(((struct sockaddr_in *)a->ifa_addr)->sin_addr.s_addr) >>
             24) != 127)
            found = 1;
    freeifaddrs(list);
    return found;
}

/* UCX's TCP transport listens on every network device it may use and
 * checks no token: dsmrun restricts a job on this machine to loopback
 * (UCX_NET_DEVICES), the same value padded to the same length on every
 * node, and keeps shared memory and the same-host lanes.  A value the
 * user set stands (the control: with all devices UCX listens elsewhere
 * too, when this machine has another address). */
static void test_ucx_listens_on_loopback_only(void **state)
{
    (void)state;
    /* at debug level the nodes say which lanes they took */
    const char *debug[] = {"DSM_LOG_LEVEL=debug", NULL};
    job_sockets_t *l = malloc(sizeof *l);
    assert_non_null(l);
    job_sockets(debug, l);
    printf("dsmrun's restriction: %d listening on loopback, %d elsewhere; "
           "node 0's UCX_NET_DEVICES=%s\n", l->loopback, l->elsewhere,
           l->devices[0]);
    for (int rank = 0; rank < 3; rank++) {
        assert_int_equal(strlen(l->devices[rank]), 127);
        assert_int_equal(strspn(l->devices[rank], "lo,"), 127);
        assert_int_equal(strncmp(l->devices[rank], "lo,", 3), 0);
    }
    if (!strstr(l->out, "messages to node 1 go through a same-host lane") ||
        !strstr(l->out, "the CPU's on mapped segments") ||
        !strstr(l->out, "posix/memory") || !strstr(l->out, "sysv/memory") ||
        strstr(l->out, ":tcp/"))
        fail_msg("same-host lanes or UCX's shared memory lost:\n%s", l->out);
    assert_true(l->loopback >= 3);   /* control: UCX's listeners counted */
    assert_int_equal(l->elsewhere, 0);

    const char *all[] = {"UCX_NET_DEVICES=all", NULL};
    job_sockets(all, l);
    printf("the user's UCX_NET_DEVICES=%s: %d listening on loopback, %d "
           "elsewhere\n", l->devices[0], l->loopback, l->elsewhere);
    for (int rank = 0; rank < 3; rank++)
        assert_string_equal(l->devices[rank], "all");
    if (has_other_address())
        assert_true(l->elsewhere > 0);
    else
        printf("no address outside loopback here: the control shows "
               "nothing\n");
    free(l);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token_not_visible),
        cmocka_unit_test(test_rendezvous_listens_on_loopback_only),
        cmocka_unit_test(test_no_listener_after_wireup),
        cmocka_unit_test(test_ucx_listens_on_loopback_only),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests_name("security", tests, NULL, NULL);
}
