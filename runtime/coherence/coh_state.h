/*
 * coh_state.h - shared state of the coherence layer: windows of the
 * sharable space, the page table, per-page locks, twins, the dirty list,
 * vector time and per-thread reply slots.
 *
 * Layer: coherence (internal header; not for the layers above).
 * Everything reachable from here is allocated at dsm_init with mmap and
 * never freed or grown while the job runs, so the fault handler and the
 * active-message handlers can use it without malloc.
 */
#ifndef COH_STATE_H
#define COH_STATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base_config.h"
#include "sys_region.h"
#include "sys_sync.h"

#define COH_MAX_NODES   256
#define COH_MAX_SLOTS   512   /* application threads per node */
#define COH_MAX_WINDOWS 4

/* Page states on this node (see doc/design.md, "Page states"). */
enum coh_page_state {
    PS_INVALID  = 0,   /* PROT_NONE: must be fetched from the home */
    PS_READONLY = 1,   /* PROT_READ: valid copy, clean in this interval */
    PS_WRITABLE = 2,   /* PROT_RW: written in this interval */
    PS_FETCHED  = 3,   /* PROT_NONE, but the runtime view holds the home's
                          copy, prefetched after this epoch's acquire
                          (coh_prefetch.c): the first access only maps it */
};

/* Page flags. */
enum coh_page_flag {
    PF_HOME       = 1 << 0,  /* this node holds the master copy */
    PF_SHARED     = 1 << 1,  /* home: some other node has fetched it */
    PF_REGISTERED = 1 << 2,  /* non-home: the home knows we share it */
    PF_TWIN       = 1 << 3,  /* a twin exists in the twin shadow */
    PF_DIRTY      = 1 << 4,  /* listed in the current dirty list */
    PF_EAGER      = 1 << 5,  /* left writable, noticed every interval: a
                                home page, or a non-home one between
                                quiescent releases (coh_interval.c, "eager
                                pages") */
    PF_REFRESH    = 1 << 6,  /* refreshed, not invalidated, by the acquire
                                that holds its page lock (coh_refresh.c) */
    PF_DIRECT     = 1 << 7,  /* READONLY, and the application view maps the
                                home's memory itself (a same-host home,
                                coh_fault.c): always current, never
                                invalidated, no copy of ours */
};

typedef struct coh_page {
    _Atomic uint8_t state;
    _Atomic uint8_t flags;
    uint16_t home;
    /* at releases only (protocol mutex; coh_interval.c, "eager pages"):
     * the low bits of the last interval that wrote the page, how many in
     * a row did (capped), the patience an eager page has (EAGER_IDLE <<
     * eager_level unchanged releases), whether it was eager and demoted
     * since, whether (non-home) its eagerness was ended by refreshes;
     * eager_idle: while eager, the releases (and, non-home, the
     * refreshes) in a row that found it unchanged; while not, the idle
     * stretch before its current run of writes */
    uint16_t written_seq;
    uint8_t written_run : 4;
    uint8_t eager_level : 2;
    uint8_t eager_before : 1;
    uint8_t eager_unfit : 1;   /* non-home: refreshed more than written */
    uint8_t eager_idle;
} coh_page_t;

/* A window maps application addresses onto a range of page indices (which
 * are also page offsets in the memfd and in the REGION transport segment). */
typedef struct coh_window {
    uintptr_t base;
    size_t pages;
    size_t first;       /* index of its first page */
} coh_window_t;

/* A reply slot per application thread: handlers of replies write the
 * result, then set done. */
typedef struct coh_slot {
    volatile int done;
    int status;
    uint64_t value;
    uint32_t vc[COH_MAX_NODES];
} coh_slot_t;

typedef struct coh {
    int rank, size;
    dsm_region_t region;            /* memfd and runtime view */
    coh_window_t win[COH_MAX_WINDOWS];
    int nwin;
    size_t npages;
    coh_page_t *pages;
    dsm_mutex_t *page_locks;        /* striped */
    char *twins;                    /* twin shadow: page i at i * PAGE */

    /* pages written in the open interval (PF_DIRTY marks membership) */
    dsm_mutex_t dirty_lock;
    uint32_t *dirty;
    size_t ndirty;
    uint32_t *dirty_spare;          /* swapped in at release */

    /* vector time: intervals of each node this node knows */
    uint32_t vc[COH_MAX_NODES];
    uint32_t vc_at_barrier[COH_MAX_NODES]; /* what all knew at the last barrier */

    /* heap window split into one arena per node */
    uintptr_t heap_base;
    size_t arena_bytes;

    coh_slot_t *slots;
    _Atomic int nslots;

    void *control;                  /* CONTROL transport segment */
    int control_fd;                 /* its memfd */
    size_t control_size;
    int initialized;
    int started_by_runtime;         /* by dsm_coh_init, not dsm_init */
    /* dsm_coh_heap_early ran and dsm_coh_init has not: this node's arena
     * serves allocations, nothing else is up (coh_init.c) */
    int heap_early;
} coh_t;

extern coh_t coh;

/* Page index of an application address, or -1 when not sharable. */
static inline long coh_page_index(uintptr_t addr)
{
    for (int i = 0; i < coh.nwin; i++) {
        uintptr_t off = addr - coh.win[i].base;
        if (addr >= coh.win[i].base && off < coh.win[i].pages * DSM_PAGE_SIZE)
            return (long)(coh.win[i].first + (off >> DSM_PAGE_SHIFT));
    }
    return -1;
}

static inline uintptr_t coh_page_addr(size_t index)
{
    for (int i = 0; i < coh.nwin; i++)
        if (index >= coh.win[i].first &&
            index < coh.win[i].first + coh.win[i].pages)
            return coh.win[i].base +
                   ((index - coh.win[i].first) << DSM_PAGE_SHIFT);
    return 0;
}

/* The index after the last page of index's window (SIZE_MAX: none). */
static inline size_t coh_window_end(size_t index)
{
    for (int i = 0; i < coh.nwin; i++)
        if (index >= coh.win[i].first &&
            index < coh.win[i].first + coh.win[i].pages)
            return coh.win[i].first + coh.win[i].pages;
    return SIZE_MAX;
}

static inline char *coh_page_rt(size_t index)
{
    return coh.region.rt + (index << DSM_PAGE_SHIFT);
}

static inline char *coh_page_twin(size_t index)
{
    return coh.twins + (index << DSM_PAGE_SHIFT);
}

/* Page locks are striped futex mutexes (sys_sync.h), usable from the
 * fault handler. */
#define COH_PAGE_LOCK_STRIPES 65536u
static inline void coh_page_lock(size_t index)
{
    dsm_mutex_lock(&coh.page_locks[index & (COH_PAGE_LOCK_STRIPES - 1)]);
}
static inline int coh_page_trylock(size_t index)
{
    return dsm_mutex_trylock(&coh.page_locks[index & (COH_PAGE_LOCK_STRIPES - 1)]);
}
static inline void coh_page_unlock(size_t index)
{
    dsm_mutex_unlock(&coh.page_locks[index & (COH_PAGE_LOCK_STRIPES - 1)]);
}

/* Add a page to the dirty list once (PF_DIRTY); page lock held. */
void coh_dirty_add(size_t index);

/* This thread's reply slot (assigned on first use). */
int coh_slot_self(void);

/* A reply handler's last step: the result, then done, which releases the
 * waiting thread.  slot already checked by the message's decoder. */
static inline void coh_slot_reply(uint32_t slot, uint64_t value)
{
    coh.slots[slot].value = value;
    __atomic_store_n(&coh.slots[slot].done, 1, __ATOMIC_RELEASE);
}

/* Set the protection of n pages starting at index (may span windows). */
void coh_protect(size_t index, size_t n, int prot);
/* Map our own memory (the memfd) again under n pages starting at index,
 * with protection prot, where a direct page showed its home's (PF_DIRECT). */
void coh_map_own(size_t index, size_t n, int prot);
/* Set prot on the pages of [first, first+n) that `selected` picks, with one
 * call per maximal run (each call is a TLB shoot-down). */
void coh_protect_where(size_t first, size_t n,
                       int (*selected)(const coh_page_t *), int prot);

#endif
