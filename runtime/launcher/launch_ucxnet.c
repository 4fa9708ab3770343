/*
 * launch_ucxnet.c - the value of UCX_NET_DEVICES for a node.
 * Layer: launcher.  See launch_ucxnet.h.  Before a node starts: in the
 * node agent, or in dsmrun for a job on this machine.
 */
#include "launch_ucxnet.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* Appends ",TEXT"; 0 when it does not fit. */
static int append(char *value, size_t len, const char *text)
{
    size_t used = strlen(value);
    size_t need = strlen(text) + 1;
    if (used + need >= len)
        return 0;
    value[used] = ',';
    memcpy(value + used + 1, text, need);
    return 1;
}

static int port_is_active(const char *root, const char *device,
                          const char *port)
{
    char path[512], state[64] = "";
    snprintf(path, sizeof path, "%s/%s/ports/%s/state", root, device, port);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int ok = fgets(state, sizeof state, f) != NULL;
    fclose(f);
    /* "4: ACTIVE" */
    return ok && strstr(state, "ACTIVE") != NULL;
}

/* Appends DEVICE:PORT for each active port; 0 when one does not fit. */
static int append_ports(char *value, size_t len, const char *root,
                        const char *device)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/ports", root, device);
    DIR *ports = opendir(path);
    if (!ports)
        return 1;
    int fits = 1;
    for (struct dirent *p; fits && (p = readdir(ports));) {
        if (p->d_name[0] == '.' || !port_is_active(root, device, p->d_name))
            continue;
        char name[300];
        snprintf(name, sizeof name, "%s:%s", device, p->d_name);
        fits = append(value, len, name);
    }
    closedir(ports);
    return fits;
}

dsm_status_t dsm_launch_ucx_net_devices(const char *interface,
                                        const char *rdma_root, char *value,
                                        size_t len)
{
    if (strlen(interface) >= len)
        return DSM_ERR_INVALID;
    strcpy(value, interface);
    DIR *devices = opendir(rdma_root);
    if (!devices)
        return DSM_OK;   /* no RDMA on this host */
    int fits = 1;
    for (struct dirent *d; fits && (d = readdir(devices));)
        if (d->d_name[0] != '.')
            fits = append_ports(value, len, rdma_root, d->d_name);
    closedir(devices);
    return fits ? DSM_OK : DSM_ERR_INVALID;
}
