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

/* Calls visit(entry, arg) for each entry of the interface list until one
 * returns non-zero: that value, 0 if none did, -1 if the list cannot be
 * read. */
static int walk_interfaces(int (*visit)(const struct ifaddrs *, void *),
                           void *arg)
{
    struct ifaddrs *list;
    if (getifaddrs(&list) != 0)
        return -1;
    int result = 0;
    for (struct ifaddrs *i = list; i && !result; i = i->ifa_next)
        result = visit(i, arg);
    freeifaddrs(list);
    return result;
}

/* 1 and *a when the entry is an IPv4 address. */
static int ipv4_of(const struct ifaddrs *i, struct in_addr *a)
{
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
        return 0;
    *a = ((const struct sockaddr_in *)i->ifa_addr)->sin_addr;
    return 1;
}

typedef struct lookup {
    const char *name;      /* from_interface: the interface asked for */
    struct in_addr want;   /* interface_holding: the address */
    char *out;             /* the address or the name found */
    size_t out_len;
    int exists;            /* from_interface: the name was seen */
} lookup_t;

static int visit_named(const struct ifaddrs *i, void *arg)
{
    lookup_t *l = arg;
    struct in_addr a;
    if (strcmp(i->ifa_name, l->name) != 0)
        return 0;
    l->exists = 1;
    return ipv4_of(i, &a) &&
           inet_ntop(AF_INET, &a, l->out, (socklen_t)l->out_len) != NULL;
}

static dsm_status_t from_interface(const char *name, char *addr,
                                   size_t addr_len, char *why,
                                   size_t why_len)
{
    lookup_t l = {.name = name, .out = addr, .out_len = addr_len};
    int found = walk_interfaces(visit_named, &l);
    if (found < 0)
        snprintf(why, why_len, "cannot list the network interfaces");
    else if (!found)
        snprintf(why, why_len, "interface '%s' %s", name,
                 l.exists ? "has no IPv4 address" : "does not exist");
    return found > 0 ? DSM_OK : DSM_ERR_INVALID;
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

static int visit_non_loopback(const struct ifaddrs *i, void *arg)
{
    lookup_t *l = arg;
    struct in_addr a;
    return ipv4_of(i, &a) && (i->ifa_flags & IFF_UP) && !is_loopback(a) &&
           inet_ntop(AF_INET, &a, l->out, (socklen_t)l->out_len) != NULL;
}

static int first_non_loopback(char *addr, size_t addr_len)
{
    lookup_t l = {.out = addr, .out_len = addr_len};
    return walk_interfaces(visit_non_loopback, &l) > 0;
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

static int visit_holding(const struct ifaddrs *i, void *arg)
{
    lookup_t *l = arg;
    struct in_addr a;
    if (!ipv4_of(i, &a) || a.s_addr != l->want.s_addr)
        return 0;
    /* an alias label ("eth0:1") names the device before the colon */
    size_t len = strcspn(i->ifa_name, ":");
    if (len >= l->out_len)
        return 0;
    memcpy(l->out, i->ifa_name, len);
    l->out[len] = '\0';
    return 1;
}

/* The interface that holds IPv4 address `a`. */
static int interface_holding(struct in_addr a, char *name, size_t name_len)
{
    lookup_t l = {.want = a, .out = name, .out_len = name_len};
    return walk_interfaces(visit_holding, &l) > 0;
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
