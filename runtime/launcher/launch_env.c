/*
 * launch_env.c - builds a node's environment array.
 *
 * Layer: launcher.  Entry points in launch_env.h.  Runs in dsmrun, never in
 * a child.  Pointer array and the strings dsmrun adds share one malloc'd
 * block; inherited entries point into dsmrun's own environ.
 */
#include "launch_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

enum { ENV_SET_MAX = 11 };  /* variables dsmrun sets */

/* Names dsmrun always replaces (UCX_POSIX_DIR and UCX_NET_DEVICES only
 * when it sets them). */
static const char *const replaced_names[] = {
    "DSM_RANK", "DSM_SIZE", "DSM_THREADS", "DSM_RENDEZVOUS",
    "DSM_RENDEZVOUS_FD", "DSM_TOKEN", "DSM_JOB_ID", "DSM_ACTIVITY_FD",
};

typedef struct setting {
    const char *name;
    const char *value;
} setting_t;

static int has_name(const char *entry, const char *name)
{
    size_t len = strlen(name);
    return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

static int is_replaced(const char *entry, const dsm_launch_env_values_t *v)
{
    for (size_t i = 0; i < sizeof replaced_names / sizeof *replaced_names; i++)
        if (has_name(entry, replaced_names[i]))
            return 1;
    return (v->ucx_posix_dir && has_name(entry, "UCX_POSIX_DIR")) ||
           (v->ucx_net_devices && has_name(entry, "UCX_NET_DEVICES"));
}

dsm_status_t dsm_launch_env_build(const dsm_launch_env_values_t *values,
                                  int rank, char ***envp)
{
    /* Every node gets the same variables with values of the same length,
     * so the initial stack (strings, envp, auxv) has the same layout on
     * every node: programs linked by dsmcc share the executable's globals,
     * and `environ` among them must point to the same place everywhere.
     * Hence the zero-padded rank and the "-00001" socket of other nodes. */
    char rank_text[16], size_text[16], threads_text[16], fd_text[16];
    char activity_text[16];
    char devices_text[DSM_LAUNCH_NET_DEVICES_WIDTH + 1];
    int rank_width = snprintf(NULL, 0, "%d", values->size - 1);
    snprintf(rank_text, sizeof rank_text, "%0*d", rank_width, rank);
    snprintf(size_text, sizeof size_text, "%d", values->size);
    snprintf(threads_text, sizeof threads_text, "%d", values->threads);
    snprintf(fd_text, sizeof fd_text, "%06d",
             rank == 0 ? values->rendezvous_fd : -1);

    setting_t set[ENV_SET_MAX];
    size_t set_count = 0;
    set[set_count++] = (setting_t){"DSM_RANK", rank_text};
    set[set_count++] = (setting_t){"DSM_SIZE", size_text};
    set[set_count++] = (setting_t){"DSM_THREADS", threads_text};
    set[set_count++] = (setting_t){"DSM_RENDEZVOUS", values->rendezvous};
    set[set_count++] = (setting_t){"DSM_TOKEN", values->token};
    set[set_count++] = (setting_t){"DSM_JOB_ID", values->job_id};
    set[set_count++] = (setting_t){"DSM_RENDEZVOUS_FD", fd_text};
    if (values->ucx_posix_dir)
        set[set_count++] = (setting_t){"UCX_POSIX_DIR", values->ucx_posix_dir};
    /* always, "-00001" without a board: node agents create one board per
     * host, and a host where that failed must not change the layout */
    snprintf(activity_text, sizeof activity_text, "%06d",
             values->activity_fd >= 0 ? values->activity_fd : -1);
    set[set_count++] = (setting_t){"DSM_ACTIVITY_FD", activity_text};
    /* with several nodes, gfortran's standard output by records, as C's
     * by lines (DSM_LINE_OUTPUT, fj_start.c), unless the user chose */
    const char *lines = getenv("DSM_LINE_OUTPUT");
    if (values->size > 1 && !(lines && strcmp(lines, "0") == 0) &&
        !getenv("GFORTRAN_UNBUFFERED_PRECONNECTED"))
        set[set_count++] =
            (setting_t){"GFORTRAN_UNBUFFERED_PRECONNECTED", "y"};
    if (values->ucx_net_devices) {
        size_t len = strlen(values->ucx_net_devices);
        if (len > DSM_LAUNCH_NET_DEVICES_WIDTH)
            return DSM_ERR_INVALID;
        memcpy(devices_text, values->ucx_net_devices, len);
        memset(devices_text + len, ',', DSM_LAUNCH_NET_DEVICES_WIDTH - len);
        devices_text[DSM_LAUNCH_NET_DEVICES_WIDTH] = '\0';
        set[set_count++] = (setting_t){"UCX_NET_DEVICES", devices_text};
    }

    size_t inherited = 0;
    for (char **e = environ; *e; e++)
        if (!is_replaced(*e, values))
            inherited++;
    size_t text_bytes = 0;
    for (size_t i = 0; i < set_count; i++)
        text_bytes += strlen(set[i].name) + 1 + strlen(set[i].value) + 1;

    size_t slots = set_count + inherited + 1;
    char **array = malloc(slots * sizeof *array + text_bytes);
    if (!array)
        return DSM_ERR_NOMEM;

    char *text = (char *)(array + slots);
    size_t n = 0;
    for (size_t i = 0; i < set_count; i++) {
        array[n++] = text;
        text = stpcpy(stpcpy(stpcpy(text, set[i].name), "="), set[i].value) + 1;
    }
    for (char **e = environ; *e; e++)
        if (!is_replaced(*e, values))
            array[n++] = *e;
    array[n] = NULL;

    *envp = array;
    return DSM_OK;
}

void dsm_launch_env_free(char **envp)
{
    free(envp);
}
