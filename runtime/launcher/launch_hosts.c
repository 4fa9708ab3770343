/*
 * launch_hosts.c - parses host lists and hostfiles; places nodes.
 * Layer: launcher.  See launch_hosts.h.  Start-up only (malloc, stdio).
 */
#include "launch_hosts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base_config.h"
#include "launch_report.h"

static int valid_name(const char *name)
{
    if (!*name || strlen(name) >= DSM_HOST_MAX || *name == '-')
        return 0;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("._-:[]", *p))
            return 0;
    return 1;
}

/* Append one host; `where` names the entry in messages. */
static dsm_status_t add_host(dsm_launch_hosts_t *h, const char *name,
                             size_t name_len, const char *slots_text,
                             const char *where)
{
    char name_copy[DSM_HOST_MAX];
    if (name_len == 0) {
        dsm_launch_say("%s: blank host entry", where);
        return DSM_ERR_INVALID;
    }
    if (name_len >= sizeof name_copy) {
        dsm_launch_say("%s: host name too long", where);
        return DSM_ERR_INVALID;
    }
    memcpy(name_copy, name, name_len);
    name_copy[name_len] = '\0';
    if (!valid_name(name_copy)) {
        dsm_launch_say("%s: invalid host name '%s'", where, name_copy);
        return DSM_ERR_INVALID;
    }
    long slots = 1;
    if (slots_text &&
        dsm_parse_int_range(slots_text, 1, DSM_LAUNCH_MAX_SLOTS, &slots) !=
            DSM_OK) {
        dsm_launch_say("%s: invalid slot count '%s' for host '%s': expected "
                       "an integer from 1 to %d", where, slots_text,
                       name_copy, DSM_LAUNCH_MAX_SLOTS);
        return DSM_ERR_INVALID;
    }
    for (int i = 0; i < h->count; i++)
        if (!strcmp(h->host[i].name, name_copy)) {
            dsm_launch_say("%s: host '%s' is listed twice (give it slots "
                           "instead)", where, name_copy);
            return DSM_ERR_INVALID;
        }
    dsm_launch_host_t *grown = realloc(h->host,
                                       (size_t)(h->count + 1) * sizeof *grown);
    char *copy = strdup(name_copy);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            h->host = grown;
        dsm_launch_say("out of memory reading the hosts");
        return DSM_ERR_NOMEM;
    }
    h->host = grown;
    h->host[h->count++] = (dsm_launch_host_t){.name = copy,
                                              .slots = (int)slots};
    h->total_slots += (int)slots;
    return DSM_OK;
}

dsm_status_t dsm_launch_hosts_from_list(const char *list,
                                        dsm_launch_hosts_t *out)
{
    dsm_launch_hosts_t h = {0};
    const char *p = list;
    for (int entry = 1;; entry++) {
        const char *end = strchrnul(p, ',');
        char item[DSM_HOST_MAX + 16];
        char where[64];
        snprintf(where, sizeof where, "--hosts entry %d", entry);
        size_t len = (size_t)(end - p);
        if (len >= sizeof item) {
            dsm_launch_say("%s: host name too long", where);
            goto fail;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *colon = strrchr(item, ':');
        if (colon)
            *colon = '\0';
        if (add_host(&h, item, strlen(item), colon ? colon + 1 : NULL,
                     where) != DSM_OK)
            goto fail;
        if (!*end)
            break;
        p = end + 1;
    }
    *out = h;
    return DSM_OK;
fail:
    dsm_launch_hosts_free(&h);
    return DSM_ERR_INVALID;
}

dsm_status_t dsm_launch_hosts_from_file(const char *path,
                                        dsm_launch_hosts_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        dsm_launch_say("hostfile '%s': %s", path, strerror(errno));
        return DSM_ERR_INVALID;
    }
    dsm_launch_hosts_t h = {0};
    char line[4096];
    int line_no = 0;
    while (fgets(line, sizeof line, f)) {
        line_no++;
        char where[DSM_LAUNCH_TEXT_MAX + 32];
        snprintf(where, sizeof where, "hostfile '%s' line %d", path, line_no);
        line[strcspn(line, "#\n")] = '\0';
        char *words[3];
        int n = 0;
        for (char *save = NULL, *w = strtok_r(line, " \t\r", &save); w;
             w = strtok_r(NULL, " \t\r", &save))
            if (n < 3)
                words[n++] = w;
            else
                n++;
        if (n == 0)
            continue;
        if (n > 2) {
            dsm_launch_say("%s: expected 'NAME [slots=N]'", where);
            goto fail;
        }
        const char *slots = NULL;
        if (n == 2)
            slots = strncmp(words[1], "slots=", 6) ? words[1] : words[1] + 6;
        if (add_host(&h, words[0], strlen(words[0]), slots, where) != DSM_OK)
            goto fail;
    }
    if (ferror(f)) {
        dsm_launch_say("hostfile '%s': %s", path, strerror(errno));
        goto fail;
    }
    fclose(f);
    if (h.count == 0) {
        dsm_launch_say("hostfile '%s' names no host", path);
        dsm_launch_hosts_free(&h);
        return DSM_ERR_INVALID;
    }
    *out = h;
    return DSM_OK;
fail:
    fclose(f);
    dsm_launch_hosts_free(&h);
    return DSM_ERR_INVALID;
}

dsm_status_t dsm_launch_hosts_place(const dsm_launch_hosts_t *hosts,
                                    int nodes, int *host_of_rank)
{
    if (nodes > hosts->total_slots) {
        dsm_launch_say("%d nodes requested but the %d host%s ha%s only %d "
                       "slot%s", nodes, hosts->count,
                       hosts->count == 1 ? "" : "s",
                       hosts->count == 1 ? "s" : "ve", hosts->total_slots,
                       hosts->total_slots == 1 ? "" : "s");
        return DSM_ERR_INVALID;
    }
    int rank = 0;
    for (int i = 0; i < hosts->count && rank < nodes; i++)
        for (int s = 0; s < hosts->host[i].slots && rank < nodes; s++)
            host_of_rank[rank++] = i;
    return DSM_OK;
}

void dsm_launch_hosts_free(dsm_launch_hosts_t *hosts)
{
    for (int i = 0; i < hosts->count; i++)
        free(hosts->host[i].name);
    free(hosts->host);
    *hosts = (dsm_launch_hosts_t){0};
}
