/*
 * launch_rendezvous.c - creates node 0's listening socket in dsmrun.
 * Layer: launcher.  Entry point in launch_rendezvous.h.  Start-up only.
 */
#include "launch_rendezvous.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

dsm_status_t dsm_launch_rendezvous_listen(int backlog, int *fd,
                                          uint16_t *port)
{
    int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0)
        return DSM_ERR_IO;

    /* INADDR_LOOPBACK is DSM_LAUNCH_RENDEZVOUS_HOST */
    struct sockaddr_in addr = {
        .sin_family = AF_INET,
        .sin_port = 0,
        .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
    };
    socklen_t len = sizeof addr;
    if (bind(sock, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(sock, backlog) != 0 ||
        getsockname(sock, (struct sockaddr *)&addr, &len) != 0)
        goto close_socket;

    *fd = sock;
    *port = ntohs(addr.sin_port);
    return DSM_OK;

close_socket:;
    int saved = errno;
    close(sock);
    errno = saved;
    return DSM_ERR_IO;
}
