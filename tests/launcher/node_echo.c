/*
 * node_echo.c - a node program for the launcher tests; needs no runtime.
 *
 * Layer: tests.  Started by dsmrun (or directly, as a control).  Every mode
 * first prints one line "node RANK pid PID job JOB ..." and flushes it; the
 * harness waits for that line.  Modes (argv[1]):
 *   report           what dsmrun handed over: size, threads, token shape,
 *                    personality, layout addresses, rendezvous socket; exit 0
 *   exit RANK CODE   node RANK exits with CODE, the others block
 *   block            block until a signal ends the node
 *   stubborn         like block, but ignore SIGTERM (only SIGKILL ends it)
 *   sigint DIR       on SIGINT write DIR/sigint.RANK, print, exit 0
 *   leave-shm        create a SysV segment (not marked for removal) and a
 *                    file in $UCX_POSIX_DIR, print their names, block
 *   touch FILE       create FILE and exit 0 (proof that a node started)
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int rank;
static char marker_dir[512];
static char sigint_message[64];   /* formatted before the handler exists */

static const char *env_or(const char *name, const char *fallback)
{
    const char *value = getenv(name);
    return value ? value : fallback;
}

static __attribute__((noreturn)) void block_forever(void)
{
    for (;;)
        pause();
}

/* "ok" if DSM_TOKEN is 32 lowercase hex digits; the token is never shown. */
static const char *token_shape(void)
{
    const char *token = getenv("DSM_TOKEN");
    if (!token || strlen(token) != 32)
        return "bad";
    for (const char *c = token; *c; c++)
        if (!strchr("0123456789abcdef", *c))
            return "bad";
    return "ok";
}

extern char **environ;

static int is_listening_socket(int fd)
{
    int listening = 0;
    socklen_t len = sizeof listening;
    return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 &&
           listening;
}

/* "listening": DSM_RENDEZVOUS_FD is a listening socket on the address in
 * DSM_RENDEZVOUS; "none": no such socket (variable absent or negative) and
 * no listening socket inherited at all; "bad" otherwise. */
static const char *rendezvous_state(void)
{
    const char *fd_text = getenv("DSM_RENDEZVOUS_FD");
    if (!fd_text || atoi(fd_text) < 0) {
        for (int fd = 0; fd < 1024; fd++)
            if (is_listening_socket(fd))
                return "bad";
        return "none";
    }
    int fd = atoi(fd_text);
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    if (!is_listening_socket(fd) ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0 ||
        addr.sin_family != AF_INET ||
        ntohl(addr.sin_addr.s_addr) != INADDR_LOOPBACK)
        return "bad";
    char expected[64];
    snprintf(expected, sizeof expected, "127.0.0.1:%u",
             (unsigned)ntohs(addr.sin_port));
    return strcmp(env_or("DSM_RENDEZVOUS", ""), expected) ? "bad"
                                                          : "listening";
}

/* Addresses that differ between runs unless randomisation is off: the
 * program itself (built as PIE), the heap's start, a fresh mapping. */
static void print_report(void)
{
    void *mapping = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
    int persona = personality(0xffffffff);
    printf("node %d pid %ld job %s size %s threads %s token %s aslr %s "
           "layout %p,%p,%p,%p rendezvous %s\n",
           rank, (long)getpid(), env_or("DSM_JOB_ID", "-"),
           env_or("DSM_SIZE", "-"), env_or("DSM_THREADS", "-"), token_shape(),
           persona != -1 && (persona & ADDR_NO_RANDOMIZE) ? "off" : "on",
           (void *)print_report, sbrk(0), mapping, (void *)environ,
           rendezvous_state());
    fflush(stdout);
}

static void print_hello(void)
{
    printf("node %d pid %ld job %s\n", rank, (long)getpid(),
           env_or("DSM_JOB_ID", "-"));
    fflush(stdout);
}

static void on_sigint(int sig)
{
    (void)sig;
    char path[600];
    int n = snprintf(path, sizeof path, "%s/sigint.%d", marker_dir, rank);
    if (n > 0 && (size_t)n < sizeof path) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0)
            close(fd);
    }
    ssize_t unused = write(STDOUT_FILENO, sigint_message,
                           strlen(sigint_message));
    (void)unused;
    _exit(0);
}

static int leave_shm(void)
{
    int shmid = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    if (shmid < 0 || shmat(shmid, NULL, 0) == (void *)-1) {
        perror("node_echo: shmget/shmat");
        return 1;
    }
    const char *dir = getenv("UCX_POSIX_DIR");
    char path[600] = "-";
    if (dir) {
        snprintf(path, sizeof path, "%s/ucx_shm_posix_node%d", dir, rank);
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0) {
            perror("node_echo: shared-memory file");
            return 1;
        }
    }
    printf("node %d pid %ld job %s shmid %d file %s\n", rank, (long)getpid(),
           env_or("DSM_JOB_ID", "-"), shmid, path);
    fflush(stdout);
    block_forever();
}

int main(int argc, char **argv)
{
    rank = atoi(env_or("DSM_RANK", "0"));
    const char *mode = argc > 1 ? argv[1] : "";

    if (!strcmp(mode, "report")) {
        print_report();
        return 0;
    }
    if (!strcmp(mode, "exit") && argc == 4) {
        print_hello();
        if (rank == atoi(argv[2]))
            return atoi(argv[3]);
        block_forever();
    }
    if (!strcmp(mode, "block")) {
        print_hello();
        block_forever();
    }
    if (!strcmp(mode, "stubborn")) {
        signal(SIGTERM, SIG_IGN);
        print_hello();
        block_forever();
    }
    if (!strcmp(mode, "sigint") && argc == 3) {
        snprintf(marker_dir, sizeof marker_dir, "%s", argv[2]);
        snprintf(sigint_message, sizeof sigint_message,
                 "node %d got SIGINT\n", rank);
        struct sigaction action = {.sa_handler = on_sigint};
        sigaction(SIGINT, &action, NULL);
        print_hello();   /* after the handler: the test may signal now */
        block_forever();
    }
    if (!strcmp(mode, "leave-shm"))
        return leave_shm();
    if (!strcmp(mode, "touch") && argc == 3) {
        int fd = open(argv[2], O_WRONLY | O_CREAT, 0600);
        return fd < 0 ? 1 : 0;
    }
    fprintf(stderr, "node_echo: unknown mode '%s'\n", mode);
    return 64;
}
