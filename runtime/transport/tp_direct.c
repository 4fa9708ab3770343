/*
 * tp_direct.c - the same-host shortcut: a node maps the segments that a
 * peer on its host offered (the sharable region's memfd) and then reads
 * and writes them with memcpy, without the peer taking part.
 *
 * Why: on shared memory UCX 1.13 has no one-sided path for memory it did
 * not allocate itself, so every get was answered by the target's progress.
 * While the target computed, its progress thread was parked or had to be
 * scheduled on a busy CPU: a page fetch waited 50 us to several ms, often
 * until the home's next barrier, and two nodes of a Jacobi sweep took
 * turns instead of computing together.  A mapped peer needs nobody: a page
 * read is a 4 KiB copy.
 *
 * "Same host" here means the same kernel (boot id) and the same network
 * namespace: processes in other namespaces stand for other hosts (the
 * hosts test harness), and their traffic must really cross the network.
 * The peer's descriptor is opened through /proc/<pid>/fd, which the kernel
 * allows only to processes of the same user (ptrace read access); any
 * failure leaves that peer on UCX, with a debug message.  DSM_SAME_HOST_MAP=0
 * turns the shortcut off.
 *
 * Consistency is that of the UCX path: there too the target's copy was
 * read at an arbitrary moment by its progress thread; the protocol makes
 * sure a reader only relies on data released before its acquire.  A
 * mapping outlives its peer's death harmlessly (the memory stays until
 * unmapped); liveness ends the job.
 *
 * Layer: transport.  dsm_tp_offer_mapping: before dsm_tp_init;
 * dsm_tp_peer_mapped: any thread.
 * tp_direct_identity, tp_direct_map, tp_same_host: wire-up.  tp_direct_unmap:
 * finalize.  The mappings are used by tp_rma.c (any thread, fault handler),
 * through tp_direct_copy.c for gets.  They stay out of core dumps
 * (sys_dump.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base_config.h"
#include "base_log.h"
#include "sys_dump.h"
#include "tp_direct.h"
#include "tp_direct_copy.h"
#include "tp_state.h"

static struct {
    int offered[DSM_TP_SEG_COUNT];
    int fd[DSM_TP_SEG_COUNT];
} offer;

dsm_status_t dsm_tp_offer_mapping(dsm_tp_segment_t seg, int fd)
{
    if (tp.initialized)
        return DSM_ERR_STATE;
    if (!tp_seg_valid(seg) || fd < 0)
        return DSM_ERR_INVALID;
    offer.offered[seg] = 1;
    offer.fd[seg] = fd;
    return DSM_OK;
}

int dsm_tp_peer_mapped(int rank, dsm_tp_segment_t seg)
{
    return tp.initialized && tp_check_rank(rank) == DSM_OK &&
           tp_seg_valid(seg) && tp.peers[rank].direct[seg] != NULL;
}

void tp_direct_identity(tp_record_t *mine)
{
    struct stat st;
    mine->netns = stat("/proc/self/ns/net", &st) == 0 ? (uint64_t)st.st_ino
                                                       : 0;
    mine->pid = (uint32_t)getpid();
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++)
        mine->map_fd[s] = offer.offered[s] ? (uint32_t)offer.fd[s]
                                           : TP_WIRE_NO_FD;
}

static unsigned char *map_peer_segment(int rank, const tp_record_t *peer,
                                       int seg)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/fd/%u", (unsigned)peer->pid,
             (unsigned)peer->map_fd[seg]);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        dsm_debug("node %d's segment %d stays on UCX: opening %s: %s", rank,
                  seg, path, strerror(errno));
        return NULL;
    }
    struct stat st;
    void *base = MAP_FAILED;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size < peer->seg_size[seg])
        dsm_debug("node %d's segment %d stays on UCX: %s is not a file of "
                  "%llu bytes", rank, seg, path,
                  (unsigned long long)peer->seg_size[seg]);
    else
        base = mmap(NULL, peer->seg_size[seg], PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    if (base == MAP_FAILED)
        return NULL;
    /* another process's memory, mostly holes: never in this node's core */
    dsm_sys_dump_exclude(base, peer->seg_size[seg]);
    dsm_debug("node %d's segment %d mapped directly", rank, seg);
    return base;
}

int tp_same_host(const tp_record_t *peer, const tp_record_t *mine)
{
    return mine->netns != 0 && peer->netns == mine->netns &&
           memcmp(peer->host_id, mine->host_id, TP_WIRE_HOST_ID_LEN) == 0;
}

void tp_direct_map(int rank, const tp_record_t *peer, const tp_record_t *mine)
{
    if (rank == tp.rank || !dsm_config()->same_host_map ||
        !tp_same_host(peer, mine))
        return;
    for (int s = 0; s < DSM_TP_SEG_COUNT; s++)
        if (peer->map_fd[s] != TP_WIRE_NO_FD && peer->seg_size[s] &&
            peer->seg_size[s] <= SIZE_MAX)
            tp.peers[rank].direct[s] = map_peer_segment(rank, peer, s);
    tp_direct_copy_open(rank, peer, mine);
}

void tp_direct_unmap(void)
{
    tp_direct_copy_close();
    for (int r = 0; tp.peers && r < tp.size; r++)
        for (int s = 0; s < DSM_TP_SEG_COUNT; s++)
            if (tp.peers[r].direct[s]) {
                munmap(tp.peers[r].direct[s], tp.peers[r].seg_size[s]);
                tp.peers[r].direct[s] = NULL;
            }
    memset(&offer, 0, sizeof offer);
}
