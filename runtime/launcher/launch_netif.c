/*
 * launch_netif.c - the rendezvous address of a multi-host job, and the
 * interface a host reaches it through.
 * Layer: launcher.  See launch_netif.h.  Node agent start-up only.
 */
#include "launch_netif.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int is_loopback(struct in_addr a)
{
    return (ntohl(a.s_addr) >> 24) == 127;
}

static dsm_status_t from_interface(const char *name, char *addr,
                                   size_t addr_len, char *why,
                                   size_t why_len)
{
    struct ifaddrs *list;
    if (getifaddrs(&list) != 0) {
        snprintf(why, why_len, "cannot list the network interfaces");
        return DSM_ERR_INVALID;
    }
    int found = 0, exists = 0;
    for (struct ifaddrs *i = list; i && !found; i = i->ifa_next) {
        if (strcmp(i->ifa_name, name) != 0)
            continue;
        exists = 1;
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        struct sockaddr_in *in = (struct sockaddr_in *)i->ifa_addr;
        found = inet_ntop(AF_INET, &in->sin_addr, addr,
                          (socklen_t)addr_len) != NULL;
    }
    freeifaddrs(list);
    if (!found)
        snprintf(why, why_len, "interface '%s' %s", name,
                 exists ? "has no IPv4 address" : "does not exist");
    return found ? DSM_OK : DSM_ERR_INVALID;
}

/* The source address the kernel would use towards `host`: a UDP connect
 * sends nothing but selects the route. */
static int route_source(const char *host, char *addr, size_t addr_len)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM};
    struct addrinfo *res;
    if (!host || !*host || getaddrinfo(host, "9", &hints, &res) != 0)
        return 0;
    int ok = 0;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
        struct sockaddr_in local;
        socklen_t len = sizeof local;
        ok = getsockname(fd, (struct sockaddr *)&local, &len) == 0 &&
             local.sin_addr.s_addr != htonl(INADDR_ANY) &&
             (!is_loopback(local.sin_addr) ||
              is_loopback(((struct sockaddr_in *)res->ai_addr)->sin_addr)) &&
             inet_ntop(AF_INET, &local.sin_addr, addr,
                       (socklen_t)addr_len) != NULL;
    }
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
    return ok;
}

static int first_non_loopback(char *addr, size_t addr_len)
{
    struct ifaddrs *list;
    if (getifaddrs(&list) != 0)
        return 0;
    int found = 0;
    for (struct ifaddrs *i = list; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
            !(i->ifa_flags & IFF_UP))
            continue;
        struct in_addr a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
        if (!is_loopback(a))
            found = inet_ntop(AF_INET, &a, addr, (socklen_t)addr_len) != NULL;
    }
    freeifaddrs(list);
    return found;
}

dsm_status_t dsm_launch_pick_address(const char *interface,
                                     const char *route_to, char *addr,
                                     size_t addr_len, char *why,
                                     size_t why_len)
{
    if (interface && *interface)
        return from_interface(interface, addr, addr_len, why, why_len);
    if (route_source(route_to, addr, addr_len))
        return DSM_OK;

    /* "CLIENT_IP CLIENT_PORT SERVER_IP SERVER_PORT" */
    const char *ssh = getenv("SSH_CONNECTION");
    char server[64];
    if (ssh && sscanf(ssh, "%*s %*s %63s", server) == 1 &&
        strchr(server, '.') && route_source(server, addr, addr_len))
        return DSM_OK;
    if (route_source(getenv("SLURM_LAUNCH_NODE_IPADDR"), addr, addr_len))
        return DSM_OK;
    if (first_non_loopback(addr, addr_len))
        return DSM_OK;
    snprintf(addr, addr_len, "127.0.0.1");
    return DSM_OK;
}

/* The interface that holds IPv4 address `a`. */
static int interface_holding(struct in_addr a, char *name, size_t name_len)
{
    struct ifaddrs *list;
    if (getifaddrs(&list) != 0)
        return 0;
    int found = 0;
    for (struct ifaddrs *i = list; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
            ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr != a.s_addr)
            continue;
        /* an alias label ("eth0:1") names the device before the colon */
        size_t len = strcspn(i->ifa_name, ":");
        if (len < name_len) {
            memcpy(name, i->ifa_name, len);
            name[len] = '\0';
            found = 1;
        }
    }
    freeifaddrs(list);
    return found;
}

dsm_status_t dsm_launch_interface_towards(const char *host, char *name,
                                          size_t name_len, char *why,
                                          size_t why_len)
{
    char addr[INET_ADDRSTRLEN];
    struct in_addr a;
    if (!route_source(host, addr, sizeof addr) ||
        inet_pton(AF_INET, addr, &a) != 1) {
        snprintf(why, why_len, "no route to node 0's address %s", host);
        return DSM_ERR_INVALID;
    }
    if (!interface_holding(a, name, name_len)) {
        snprintf(why, why_len, "no interface holds %s, the address towards "
                 "node 0's %s", addr, host);
        return DSM_ERR_INVALID;
    }
    return DSM_OK;
}
