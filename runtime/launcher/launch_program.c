/*
 * launch_program.c - PATH search and executable check for dsmrun.
 *
 * Layer: launcher.  Entry point in launch_program.h.  Start-up only.
 * Resolving in dsmrun, before any fork, turns a typo into a usage error
 * instead of N failed nodes; the children then execve the resolved path.
 */
#include "launch_program.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch_report.h"

typedef enum candidate {
    CANDIDATE_MISSING,
    CANDIDATE_NOT_EXECUTABLE,
    CANDIDATE_OK,
} candidate_t;

static candidate_t check_candidate(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return CANDIDATE_MISSING;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return CANDIDATE_NOT_EXECUTABLE;
    return CANDIDATE_OK;
}

static dsm_status_t report(const char *name, candidate_t worst)
{
    if (worst == CANDIDATE_NOT_EXECUTABLE)
        dsm_launch_say("program '%s' is not executable", name);
    else
        dsm_launch_say("program '%s' not found", name);
    return DSM_ERR_INVALID;
}

/* The PATH to search: the environment's, or the C library's default. */
static const char *search_path(char *fallback, size_t len)
{
    const char *path = getenv("PATH");
    if (path)
        return path;
    size_t needed = confstr(_CS_PATH, fallback, len);
    if (needed == 0 || needed > len)
        return "/bin:/usr/bin";
    return fallback;
}

dsm_status_t dsm_launch_resolve_program(const char *name, char *path,
                                        size_t path_len)
{
    size_t name_len = strlen(name);
    if (name_len == 0)
        return report(name, CANDIDATE_MISSING);

    if (strchr(name, '/')) {
        candidate_t c = check_candidate(name);
        if (c != CANDIDATE_OK)
            return report(name, c);
        if (name_len >= path_len)
            return report(name, CANDIDATE_MISSING);
        memcpy(path, name, name_len + 1);
        return DSM_OK;
    }

    char fallback[256];
    const char *dirs = search_path(fallback, sizeof fallback);
    candidate_t worst = CANDIDATE_MISSING;
    for (const char *dir = dirs;; ) {
        const char *end = strchrnul(dir, ':');
        size_t dir_len = (size_t)(end - dir);
        char candidate[4096];
        /* an empty element means the current directory, as for execvp */
        if (dir_len == 0) {
            dir = ".";
            dir_len = 1;
        }
        if (dir_len + 1 + name_len < sizeof candidate) {
            memcpy(candidate, dir, dir_len);
            candidate[dir_len] = '/';
            memcpy(candidate + dir_len + 1, name, name_len + 1);
            candidate_t c = check_candidate(candidate);
            if (c == CANDIDATE_OK) {
                if (dir_len + 1 + name_len >= path_len)
                    return report(name, CANDIDATE_MISSING);
                memcpy(path, candidate, dir_len + 1 + name_len + 1);
                return DSM_OK;
            }
            if (c == CANDIDATE_NOT_EXECUTABLE)
                worst = c;
        }
        if (*end == '\0')
            break;
        dir = end + 1;
    }
    return report(name, worst);
}
