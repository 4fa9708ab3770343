/*
 * board_reader.c - reads a job's activity board for the tests.
 * Layer: tests.  See board_reader.h.
 */
#include "board_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_activity.h"

int board_open(pid_t dsmrun_pid)
{
    char dir_path[64];
    snprintf(dir_path, sizeof dir_path, "/proc/%ld/fd", (long)dsmrun_pid);
    DIR *dir = opendir(dir_path);
    if (!dir)
        return -1;
    int fd = -1;
    struct dirent *e;
    while (fd < 0 && (e = readdir(dir)) != NULL) {
        char path[320], target[128];
        snprintf(path, sizeof path, "%s/%s", dir_path, e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strstr(target, "memfd:dsmomp-activity"))
            fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    closedir(dir);
    return fd;
}

void board_describe(int fd, int rank, char *buf, size_t len)
{
    static unsigned char block[DSM_ACTIVITY_BLOCK];
    buf[0] = '\0';
    if (pread(fd, block, sizeof block, (off_t)rank * DSM_ACTIVITY_BLOCK) !=
        (ssize_t)sizeof block)
        return;
    dsm_activity_describe_node(block, buf, len);
}
