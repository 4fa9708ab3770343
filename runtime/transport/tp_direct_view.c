/*
 * tp_direct_view.c - a read-only view of a same-host peer's memory at an
 * address of the caller's choice: the pages of the peer's offered segment
 * mapped MAP_SHARED from the descriptor tp_direct_copy.c keeps, so loads
 * read the peer's memory itself, with no copy and no page of our own.
 *
 * Why: the coherence layer reads pages whose home is a mapped peer this
 * way (doc/design.md, "Direct reads from same-host homes").  A first fetch
 * through a copy allocates and fills a fresh page of ours (1.2-2 us per
 * page on this machine, bench/fetch_copy_bench); a mapping costs one
 * system call per run of pages and the page-table entries of what is read.
 *
 * With private_copy the pages are mapped copy-on-write and writable
 * instead: this process then reads the peer's pages until it writes one,
 * which becomes its own (used once the job is over, at dsm_finalize).
 *
 * Layer: transport.  dsm_tp_peer_viewable, dsm_tp_map_peer_view: any
 * thread, the fault handler included (one system call; errno is
 * preserved).
 */
#include <errno.h>
#include <sys/mman.h>

#include "tp_direct_copy.h"
#include "tp_state.h"

int dsm_tp_peer_viewable(int rank, dsm_tp_segment_t seg)
{
    return dsm_tp_peer_mapped(rank, seg) &&
           tp_direct_copy_peer_fd(rank, seg) >= 0;
}

dsm_status_t dsm_tp_map_peer_view(int rank, dsm_tp_segment_t seg,
                                  uint64_t offset, void *addr, size_t len,
                                  int private_copy)
{
    if (!dsm_tp_peer_viewable(rank, seg) || len == 0 ||
        offset > tp.peers[rank].seg_size[seg] ||
        len > tp.peers[rank].seg_size[seg] - offset)
        return DSM_ERR_INVALID;
    int saved_errno = errno;
    void *at = mmap(addr, len,
                    private_copy ? PROT_READ | PROT_WRITE : PROT_READ,
                    (private_copy ? MAP_PRIVATE : MAP_SHARED) | MAP_FIXED,
                    tp_direct_copy_peer_fd(rank, seg), (off_t)offset);
    errno = saved_errno;
    return at == addr ? DSM_OK : DSM_ERR_IO;
}
