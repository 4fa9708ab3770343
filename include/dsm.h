/*
 * dsm.h - the public C API of dsmomp, a page-based software distributed
 * shared memory runtime for OpenMP programs.
 *
 * One header: status codes, start-up and shut-down, the sharable heap,
 * sharable globals, synchronisation with consistency (barrier, locks, flush),
 * process queries and statistics.  Everything here may be called from any
 * application thread of any node after dsm_init() (or automatically, when the
 * program was linked by dsmcc).  Nothing here may be called from a signal
 * handler.
 */
#ifndef DSM_H
#define DSM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DSM_API __attribute__((visibility("default")))

/* Status codes: zero is success, errors are negative. */
typedef enum dsm_status {
    DSM_OK              =  0,
    DSM_ERR_INVALID     = -1,  /* bad argument or bad configuration value */
    DSM_ERR_NOMEM       = -2,  /* out of memory (local or sharable) */
    DSM_ERR_IO          = -3,  /* system call failed */
    DSM_ERR_TRANSPORT   = -4,  /* UCX reported an error */
    DSM_ERR_TIMEOUT     = -5,  /* a peer did not answer within DSM_TIMEOUT */
    DSM_ERR_PEER_FAILED = -6,  /* a peer node died or disconnected */
    DSM_ERR_REFUSED     = -7,  /* authentication (job token) failed */
    DSM_ERR_PROTOCOL    = -8,  /* malformed message */
    DSM_ERR_BUSY        = -9,  /* resource held (try-lock) */
    DSM_ERR_STATE       = -10, /* call not valid in the current state */
    DSM_ERR_COLLISION   = -11, /* sharable region overlaps an existing mapping */
} dsm_status_t;

/* A static string describing a status code; never NULL. */
DSM_API const char *dsm_status_string(dsm_status_t status);

/* Start-up and shut-down.  dsm_init joins the job described by the DSM_*
 * environment that dsmrun sets (without it the program runs as one node).
 * Collective: every node calls it, and dsm_finalize, once. */
DSM_API dsm_status_t dsm_finalize(void);
/* dsm_init passes the bounds of the program's DSM_SHARABLE section (set by
 * the link script dsmcc adds) to the runtime. */
DSM_API dsm_status_t dsm_init_sharable(void *start, void *end,
                                       void *unscripted_start);
extern char __dsm_sharable_start[] __attribute__((weak, visibility("hidden")));
extern char __dsm_sharable_end[] __attribute__((weak, visibility("hidden")));
extern char __start_dsm_sharable[] __attribute__((weak, visibility("hidden")));
static inline dsm_status_t dsm_init(void)
{
    return dsm_init_sharable(__dsm_sharable_start, __dsm_sharable_end,
                             __start_dsm_sharable);
}

/* Process queries: this node's number, the number of nodes. */
DSM_API int dsm_node_id(void);
DSM_API int dsm_num_nodes(void);

/* The sharable heap.  Memory returned here is visible at the same address on
 * every node.  On exhaustion the allocators return NULL with errno ENOMEM. */
DSM_API void *dsm_malloc(size_t size);
DSM_API void *dsm_calloc(size_t count, size_t size);
DSM_API void *dsm_realloc(void *ptr, size_t size);
DSM_API void *dsm_aligned_alloc(size_t alignment, size_t size);
DSM_API void  dsm_free(void *ptr);
/* Non-zero when ptr lies in the sharable region. */
DSM_API int   dsm_is_sharable(const void *ptr);

/* A global or static variable declared DSM_SHARABLE lives in a section the
 * runtime maps into the sharable space: it has one value cluster-wide, its
 * initial value is node 0's.  Link with dsmcc (or -Wl,-T,dsm_sharable.ld). */
#define DSM_SHARABLE __attribute__((section("dsm_sharable")))

/* Synchronisation.  A barrier waits for every application thread of every
 * node that takes part (see dsm_barrier_threads) and makes all writes before
 * it visible after it.  A lock's acquirer sees everything the previous
 * holder wrote.  dsm_flush is OpenMP's flush: it publishes this node's
 * writes (release) and then makes visible every write any node published
 * before it (acquire), so threads may synchronise through flags and
 * flushes alone. */
DSM_API dsm_status_t dsm_barrier(void);
DSM_API dsm_status_t dsm_flush(void);

/* Number of threads per node that call dsm_barrier (default 1).  Every node
 * must set the same value before the first barrier that uses it. */
DSM_API dsm_status_t dsm_barrier_threads(int threads_per_node);

/* A promise (on: 1) that while a thread of this node is inside dsm_barrier,
 * no thread of the node writes sharable memory: every thread that writes
 * takes part in the barrier or is idle, as in fork-join.  It lets a barrier
 * keep writable the non-home pages the node writes in every epoch (no
 * write fault, no protection change; see doc/design.md, "Eager pages").
 * Off by default.  Any thread, between barriers. */
DSM_API dsm_status_t dsm_barrier_quiescent(int on);

/* A cluster-wide lock.  The handle is 8 bytes, fits in omp_lock_t, and may be
 * stored in sharable memory and used from any node. */
typedef struct dsm_lock { uint64_t opaque; } dsm_lock_t;
DSM_API dsm_status_t dsm_lock_init(dsm_lock_t *lock);
DSM_API dsm_status_t dsm_lock_acquire(dsm_lock_t *lock);
DSM_API dsm_status_t dsm_lock_try(dsm_lock_t *lock);   /* DSM_ERR_BUSY if held */
DSM_API dsm_status_t dsm_lock_release(dsm_lock_t *lock);
DSM_API dsm_status_t dsm_lock_destroy(dsm_lock_t *lock);

/* Statistics of this node; the counters are cumulative since dsm_init. */
typedef struct dsm_stats {
    uint64_t read_faults;
    uint64_t write_faults;
    uint64_t pages_fetched;
    uint64_t twins;
    uint64_t diffs_sent;
    uint64_t diff_bytes_sent;
    uint64_t diff_bytes_applied;
    uint64_t write_notices_sent;
    uint64_t write_notices_received;
    uint64_t invalidations;
    uint64_t barriers;
    uint64_t lock_acquires;
    uint64_t messages_sent;
    uint64_t bytes_sent;
    uint64_t rma_gets;
    uint64_t rma_get_bytes;
    uint64_t rma_puts;
    uint64_t rma_put_bytes;
    uint64_t atomics;
    uint64_t protocol_ns;   /* time spent inside the protocol */
    uint64_t pages_migrated; /* pages whose home moved to this node */
    uint64_t eager_pages;    /* home pages switched to eager tracking */
    uint64_t refreshes;     /* valid pages an acquire refreshed from their
                               home instead of invalidating them */
    uint64_t direct_pages;  /* pages read through a mapping of their
                               same-host home's memory, not copied */
    uint64_t flush_acquires; /* flushes (and acquire atomics) that read
                                every node's write notices */
    uint64_t pages_prefetched; /* pages fetched in bulk at the start of an
                                  epoch, from what the same program point
                                  fetched the last time */
    uint64_t prefetch_hits;  /* faults a prefetched copy served */
    uint64_t parallel_regions; /* regions this node took part in (their
                                  starts: node 0 forks, the others join) */
    uint64_t pushes_sent;    /* node 0: page changes a departure carried
                                (DSM_PUSH_UPDATES) */
    uint64_t pushes_applied; /* copies updated from a departure's pushed
                                changes instead of dropped */
    uint64_t acquire_gets;   /* gets of other nodes' interval logs (a
                                flush's, a lock grant's acquire) */
    uint64_t acquire_rounds; /* rounds of them: each waits for the one
                                before, the gets of one are in flight
                                together */
    uint64_t prefetch_mapped; /* prefetched pages mapped at once, without
                                 a fault (the program point's set is
                                 trusted between checks) */
} dsm_stats_t;
DSM_API void dsm_stats_get(dsm_stats_t *out);

/* Intel Cluster OpenMP names, accepted as aliases. */
DSM_API void *kmp_sharable_malloc(size_t size);
DSM_API void *kmp_aligned_sharable_malloc(size_t size);
DSM_API void *kmp_sharable_calloc(size_t count, size_t size);
DSM_API void *kmp_sharable_realloc(void *ptr, size_t size);
DSM_API void  kmp_sharable_free(void *ptr);
DSM_API int   kmp_is_sharable(void *ptr);

#ifdef __cplusplus
}
#endif
#endif /* DSM_H */
