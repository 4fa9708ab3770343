/*
 * launch_shm.c - the job's UCX shared-memory directory and SysV leftovers.
 *
 * Layer: launcher.  Entry points in launch_shm.h, which explains what is
 * removed and why that is safe.  Runs in dsmrun after the nodes are reaped.
 */
#include "launch_shm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch_report.h"

#define SHM_ROOT "/dev/shm"

/* UCX's spelling of false for a boolean setting, in any case. */
static int ucx_false(const char *value)
{
    static const char *const words[] = {"n", "no", "off", "0"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcasecmp(value, words[i]))
            return 1;
    return 0;
}

int dsm_launch_shm_dir_needed(void)
{
    const char *dir = getenv("UCX_POSIX_DIR");
    const char *proc_link = getenv("UCX_POSIX_USE_PROC_LINK");
    return (!dir || !*dir) && proc_link && ucx_false(proc_link);
}

dsm_status_t dsm_launch_shm_dir_create(const char *job_id, char *path,
                                       size_t path_len)
{
    int n = snprintf(path, path_len, SHM_ROOT "/dsmomp-%s", job_id);
    if (n < 0 || (size_t)n >= path_len) {
        errno = ENAMETOOLONG;
        return DSM_ERR_IO;
    }
    if (mkdir(path, 0700) != 0)
        return DSM_ERR_IO;
    return DSM_OK;
}

void dsm_launch_shm_dir_remove(const char *path, int verbose)
{
    DIR *dir = opendir(path);
    if (!dir) {
        dsm_launch_say("cannot open %s: %s", path, strerror(errno));
        return;
    }
    int removed = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
            continue;
        if (unlinkat(dirfd(dir), entry->d_name, 0) == 0)
            removed++;
    }
    closedir(dir);
    if (rmdir(path) != 0)
        dsm_launch_say("cannot remove %s: %s", path, strerror(errno));
    else if (verbose && removed > 0)
        dsm_launch_say("removed %d shared-memory file%s left by the job",
                       removed, removed == 1 ? "" : "s");
}

static int created_by_node(const dsm_launch_node_t *nodes, int node_count,
                           long pid)
{
    for (int rank = 0; rank < node_count; rank++)
        if ((long)nodes[rank].pid == pid)
            return 1;
    return 0;
}

void dsm_launch_sysv_remove(const dsm_launch_node_t *nodes, int node_count,
                            time_t since, int verbose)
{
    FILE *table = fopen("/proc/sysvipc/shm", "re");
    if (!table)
        return;   /* no SysV IPC in this kernel: nothing can be left */

    char line[512];
    if (!fgets(line, sizeof line, table)) {   /* the header */
        fclose(table);
        return;
    }
    uid_t me = geteuid();
    while (fgets(line, sizeof line, table)) {
        long key, size, cpid, lpid, nattch, atime, dtime, ctime;
        int shmid;
        unsigned perms, uid, gid, cuid, cgid;
        if (sscanf(line, "%ld %d %o %ld %ld %ld %ld %u %u %u %u %ld %ld %ld",
                   &key, &shmid, &perms, &size, &cpid, &lpid, &nattch, &uid,
                   &gid, &cuid, &cgid, &atime, &dtime, &ctime) != 14)
            continue;
        /* The pid test alone could match a segment of an older process
         * that had the same pid; the creation time rules that out. */
        if (cuid != me || nattch != 0 || (perms & SHM_DEST) ||
            ctime < (long)since || !created_by_node(nodes, node_count, cpid))
            continue;
        if (shmctl(shmid, IPC_RMID, NULL) == 0 && verbose)
            dsm_launch_say("removed SysV shared-memory segment %d left by "
                           "node pid %ld", shmid, cpid);
    }
    fclose(table);
}
