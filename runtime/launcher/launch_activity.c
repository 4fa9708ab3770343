/*
 * launch_activity.c - creates, reads and removes the job's activity board.
 * Layer: launcher.  See launch_activity.h.
 */
#include "launch_activity.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base_activity.h"
#include "launch_report.h"

static const unsigned char *board;
static size_t board_size;
static int board_fd = -1;
static int board_nodes;

dsm_status_t dsm_launch_activity_create(int nodes, int *fd)
{
    size_t size = dsm_activity_board_size(nodes);
    /* no MFD_CLOEXEC: the nodes inherit it through execve */
    int created = memfd_create("dsmomp-activity", 0);
    if (created < 0)
        return DSM_ERR_IO;
    void *map = MAP_FAILED;
    if (ftruncate(created, (off_t)size) == 0)
        map = mmap(NULL, size, PROT_READ, MAP_SHARED, created, 0);
    if (map == MAP_FAILED) {
        int saved = errno;
        close(created);
        errno = saved;
        return DSM_ERR_IO;
    }
    board = map;
    board_size = size;
    board_fd = created;
    board_nodes = nodes;
    *fd = created;
    return DSM_OK;
}

size_t dsm_launch_activity_describe(int rank, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (!board || rank < 0 || rank >= board_nodes)
        return 0;
    return dsm_activity_describe_node(board + (size_t)rank *
                                                  DSM_ACTIVITY_BLOCK,
                                      buf, len);
}

void dsm_launch_activity_report(int rank, const char *host)
{
    char where[300] = "";
    if (host && host[0])
        snprintf(where, sizeof where, " on host %s", host);
    if (!board || rank < 0 || rank >= board_nodes) {
        dsm_launch_say("node %d%s: no activity board", rank, where);
        return;
    }
    const dsm_activity_entry_t *entries =
        (const void *)(board + (size_t)rank * DSM_ACTIVITY_BLOCK);
    int lines = 0;
    for (int i = 0; i < DSM_ACTIVITY_SLOTS; i++) {
        /* a copy: the thread may change its entry while we read */
        dsm_activity_entry_t e;
        memcpy(&e, &entries[i], sizeof e);
        char thread[64], doing[512];
        if (dsm_activity_describe_thread(&e, thread, sizeof thread) == 0 ||
            dsm_activity_describe(&e, doing, sizeof doing) == 0)
            continue;
        dsm_launch_say("node %d%s %s: %s", rank, where, thread, doing);
        lines++;
    }
    if (lines == 0)
        dsm_launch_say("node %d%s: no thread has recorded anything yet",
                       rank, where);
}

void dsm_launch_activity_destroy(void)
{
    if (board)
        munmap((void *)board, board_size);
    if (board_fd >= 0)
        close(board_fd);
    board = NULL;
    board_fd = -1;
    board_nodes = 0;
}
