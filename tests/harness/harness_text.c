/*
 * harness_text.c - reads what test programs print: "node R pid P" lines
 * and small files.
 *
 * Layer: tests.  Entry points: dsm_harness_find_node_pid,
 * dsm_harness_read_file (see harness.h).
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int dsm_harness_find_node_pid(const char *text, int rank, pid_t *pid)
{
    for (const char *line = text; line && *line; ) {
        int found_rank;
        long found_pid;
        if (sscanf(line, "node %d pid %ld", &found_rank, &found_pid) == 2 &&
            found_rank == rank && found_pid > 0) {
            *pid = (pid_t)found_pid;
            return 0;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    errno = ENOENT;
    return -1;
}

int dsm_harness_read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t used = 0;
    while (used + 1 < len) {
        ssize_t n = read(fd, buf + used, len - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    close(fd);
    buf[used] = '\0';
    return 0;
}
