/*
 * core_file.c - allow core dumps, then name, measure and remove the one a
 * crashed process left.  Layer: tests; see core_file.h.
 */
#include "core_file.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

int core_allow(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_CORE, &rl) != 0)
        return -1;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_CORE, &rl) != 0)
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/dsm-cores-XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir) || chdir(dir) != 0)
        return -1;
    return 0;
}

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* Expand the pattern for pid; -1 when a specifier's value is unknown. */
static int expand(const char *pattern, pid_t pid, const char *comm, int sig,
                  char *out, size_t len)
{
    size_t n = 0;
    int has_pid = 0;
    for (const char *p = pattern; *p; p++) {
        char piece[HOST_NAME_MAX + 1] = {*p, '\0'};
        if (*p == '%') {
            p++;
            switch (*p) {
            case '%': break;   /* piece is "%" */
            case 'p': case 'P':
                snprintf(piece, sizeof piece, "%ld", (long)pid);
                has_pid = 1;
                break;
            case 'e': snprintf(piece, sizeof piece, "%.15s", comm); break;
            case 'u': snprintf(piece, sizeof piece, "%u", getuid()); break;
            case 'g': snprintf(piece, sizeof piece, "%u", getgid()); break;
            case 's': snprintf(piece, sizeof piece, "%d", sig); break;
            case 'h': gethostname(piece, sizeof piece); break;
            default: return -1;
            }
        }
        size_t k = strlen(piece);
        if (n + k >= len)
            return -1;
        memcpy(out + n, piece, k + 1);
        n += k;
    }
    char uses_pid[8] = "0";
    read_line("/proc/sys/kernel/core_uses_pid", uses_pid, sizeof uses_pid);
    if (!has_pid && uses_pid[0] == '1')
        snprintf(out + n, len - n, ".%ld", (long)pid);
    return 0;
}

long long core_take(pid_t pid, const char *comm, int sig, char *buf,
                    size_t len)
{
    char pattern[512], path[PATH_MAX];
    struct stat st;
    if (read_line("/proc/sys/kernel/core_pattern", pattern, sizeof pattern))
        pattern[0] = '\0';
    if (pattern[0] == '|') {
        snprintf(buf, len, "piped to %s", pattern + 1);
        return -1;
    }
    if (expand(pattern, pid, comm, sig, path, sizeof path) != 0) {
        snprintf(buf, len, "core_pattern %s names no file the test knows",
                 pattern);
        return -1;
    }
    if (stat(path, &st) != 0) {
        snprintf(buf, len, "none at %s", path);
        return 0;
    }
    long long disk = (long long)st.st_blocks * 512;
    snprintf(buf, len, "%s: %lld MiB on disk, %lld MiB apparent, removed",
             path, disk >> 20, (long long)st.st_size >> 20);
    unlink(path);
    return disk;
}

void core_done(void)
{
    if (!dir[0])
        return;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(d), e->d_name, 0);
    if (d)
        closedir(d);
    if (chdir("/") == 0)
        rmdir(dir);
    dir[0] = '\0';
}
