/*
 * harness_jobs.c - finds and watches the processes of a job through /proc.
 *
 * Layer: tests.  Entry points: dsm_harness_job_pids, dsm_harness_proc_env,
 * dsm_harness_await_exit (see harness.h).  The processes need not be the
 * caller's children: a job's nodes are dsmrun's, or init's once dsmrun is
 * gone.  Reading another process's environ needs the same user.
 */
#include "harness.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "harness_clock.h"

#define ENVIRON_MAX (1024 * 1024)

/* The environment block of pid ("A=1\0B=2\0"), malloc'd, NUL-terminated
 * twice; NULL if the process is gone or unreadable. */
static char *read_environ(pid_t pid, size_t *len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 16384, used = 0;
    char *buf = malloc(cap + 2);
    while (buf) {
        ssize_t n = read(fd, buf + used, cap - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
        if (used == cap) {
            char *bigger = cap < ENVIRON_MAX ? realloc(buf, 2 * cap + 2) : NULL;
            if (!bigger)
                break;   /* keep what fits */
            buf = bigger;
            cap *= 2;
        }
    }
    close(fd);
    if (buf) {
        buf[used] = buf[used + 1] = '\0';
        *len = used;
    }
    return buf;
}

/* The value of name in an environment block, or NULL. */
static const char *find_variable(const char *block, size_t len,
                                 const char *name)
{
    size_t name_len = strlen(name);
    for (const char *entry = block; entry < block + len;
         entry += strlen(entry) + 1)
        if (!strncmp(entry, name, name_len) && entry[name_len] == '=')
            return entry + name_len + 1;
    return NULL;
}

static int is_pid_name(const char *name)
{
    if (!*name)
        return 0;
    for (; *name; name++)
        if (!isdigit((unsigned char)*name))
            return 0;
    return 1;
}

int dsm_harness_job_pids(const char *job_id, pid_t *pids, int max)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return -1;
    int found = 0;
    struct dirent *entry;
    while ((entry = readdir(proc)) != NULL) {
        if (!is_pid_name(entry->d_name))
            continue;
        pid_t pid = (pid_t)strtol(entry->d_name, NULL, 10);
        size_t len;
        char *block = read_environ(pid, &len);
        if (!block)
            continue;   /* gone, or not ours to read */
        const char *value = find_variable(block, len, "DSM_JOB_ID");
        if (value && !strcmp(value, job_id)) {
            if (found < max)
                pids[found] = pid;
            found++;
        }
        free(block);
    }
    closedir(proc);
    return found;
}

int dsm_harness_proc_env(pid_t pid, const char *name, char *value,
                         size_t len)
{
    size_t block_len;
    char *block = read_environ(pid, &block_len);
    if (!block)
        return -1;
    const char *found = find_variable(block, block_len, name);
    if (!found || strlen(found) >= len) {
        free(block);
        errno = found ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    strcpy(value, found);
    free(block);
    return 0;
}

int dsm_harness_await_exit(const pid_t *pids, int count, int timeout_s)
{
    struct pollfd *fds = calloc((size_t)count + 1, sizeof *fds);
    if (!fds)
        return -1;
    int watched = 0;
    for (int i = 0; i < count; i++) {
        int fd = pidfd_open(pids[i], 0);
        if (fd < 0)
            continue;   /* ESRCH: already gone (and reaped) */
        fds[watched++] = (struct pollfd){.fd = fd, .events = POLLIN};
    }

    /* A pidfd turns readable when its process exits; poll until all have. */
    int64_t deadline = harness_deadline(timeout_s);
    int result = 0;
    for (;;) {
        int alive = 0;
        for (int i = 0; i < watched; i++)
            if (!(fds[i].revents & POLLIN))
                fds[alive++] = fds[i];
            else
                close(fds[i].fd);
        watched = alive;
        if (watched == 0)
            break;
        for (int i = 0; i < watched; i++)
            fds[i].revents = 0;
        int ready = poll(fds, (nfds_t)watched, harness_ms_left(deadline));
        if (ready == 0 || (ready < 0 && errno != EINTR)) {
            result = -1;
            if (ready == 0)
                errno = ETIMEDOUT;
            break;
        }
    }
    int saved = errno;
    for (int i = 0; i < watched; i++)
        close(fds[i].fd);
    free(fds);
    errno = saved;
    return result;
}
