/*
 * coh_init.c - start-up and shut-down of a node: the sharable space (heap
 * region and the program's sharable globals), the page table and the
 * protocol tables, the transport, the fault handler; plus the small public
 * queries (node id, node count, flush).
 *
 * Layer: coherence.  dsm_init_sharable and dsm_finalize: the main thread,
 * once each, collectively on every node.  dsm_coh_heap_early: the main
 * thread, once, before dsm_coh_init (the program's constructors then
 * allocate from this node's arena before the node joins the job).
 */
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "base_log.h"
#include "coh_check.h"
#include "coh_protocol.h"
#include "coh_report.h"
#include "coh_sharing.h"
#include "coh_state.h"
#include "coh_stats.h"
#include "coherence.h"
#include "sys_dump.h"
#include "sys_fault.h"
#include "sys_stack.h"
#include "transport.h"

static int fault_entry(uintptr_t addr, dsm_fault_access_t access)
{
    return coh_fault_handler(addr, access);
}

static void add_window(uintptr_t base, size_t pages)
{
    coh_window_t *w = &coh.win[coh.nwin++];
    w->base = base;
    w->pages = pages;
    w->first = coh.nwin > 1 ? coh.win[coh.nwin - 2].first +
                              coh.win[coh.nwin - 2].pages : 0;
}

static int is_home(const coh_page_t *pg)
{
    return (atomic_load(&pg->flags) & PF_HOME) != 0;
}

static int is_remote(const coh_page_t *pg) { return !is_home(pg); }

/* Homes and initial states of one window: the pages home_of gives this
 * node start private and writable, the others invalid. */
static void init_window_pages(const coh_window_t *w, int (*home_of)(size_t))
{
    for (size_t i = 0; i < w->pages; i++) {
        coh_page_t *pg = &coh.pages[w->first + i];
        int home = home_of(i);
        pg->home = (uint16_t)home;
        if (home == coh.rank) {
            pg->flags = PF_HOME;
            pg->state = PS_WRITABLE;
        } else {
            pg->flags = 0;
            pg->state = PS_INVALID;
        }
    }
    /* adopted memory comes mapped read-write, the region PROT_NONE */
    coh_protect_where(w->first, w->pages, is_home, DSM_PROT_RW);
    coh_protect_where(w->first, w->pages, is_remote, DSM_PROT_NONE);
}

static int home_globals(size_t i) { (void)i; return 0; }

/* The region window: node 0's main stack first (below it nothing is
 * mapped, so an overflow is an ordinary crash), then one arena per node. */
static size_t stack_pages;

static int home_heap(size_t i)
{
    if (i < stack_pages)
        return 0;
    size_t k = (i - stack_pages) / (coh.arena_bytes >> DSM_PAGE_SHIFT);
    return k < (size_t)coh.size ? (int)k : coh.size - 1;
}

void dsm_coh_main_stack(void **lo, size_t *len)
{
    *lo = (void *)coh.win[0].base;
    *len = stack_pages << DSM_PAGE_SHIFT;
}

/* The CONTROL segment: the published interval log, then words reserved by
 * the layers above.  Allocated on first use so reservations can precede
 * dsm_coh_init.  A memfd, so that peers on this host can map it (their
 * reads of the log, and their atomics on the words, then need no help
 * from this node). */
#define CONTROL_EXTRA ((size_t)1 << 20)
static size_t control_reserved;

static dsm_status_t control_ensure(void)
{
    if (coh.control)
        return DSM_OK;
    coh.control_size = sizeof(coh_log_t) + CONTROL_EXTRA;
    coh.control_size = (coh.control_size + DSM_PAGE_SIZE - 1) &
                       ~(DSM_PAGE_SIZE - 1);
    dsm_region_t control;
    dsm_status_t st = dsm_sys_region_create(coh.control_size, &control);
    if (st != DSM_OK)
        return st;
    coh.control = control.rt;
    coh.control_fd = control.memfd;
    /* the published log is a fixed ring: touch it now so its resident size
     * never grows while the job runs */
    memset(coh.control, 0, coh.control_size);
    return DSM_OK;
}

dsm_status_t dsm_coh_control_reserve(size_t bytes, uint64_t *offset,
                                     void **local)
{
    bytes = (bytes + 63) & ~(size_t)63;
    if (coh.initialized || control_ensure() != DSM_OK)
        return DSM_ERR_STATE;
    if (bytes > CONTROL_EXTRA - control_reserved)
        return DSM_ERR_NOMEM;
    uint64_t off = sizeof(coh_log_t) + control_reserved;
    control_reserved += bytes;
    *offset = off;
    *local = (char *)coh.control + off;
    return DSM_OK;
}

/* The pages adopted windows add to the memfd; DSM_ERR_INVALID for a
 * window that is not page-aligned or too many windows. */
static dsm_status_t adopt_pages_of(const dsm_coh_init_args_t *args,
                                   size_t *pages)
{
    size_t n = 0;
    for (int i = 0; i < args->nadopt; i++) {
        if (args->adopt[i].base % DSM_PAGE_SIZE ||
            args->adopt[i].len % DSM_PAGE_SIZE)
            return DSM_ERR_INVALID;
        n += args->adopt[i].len >> DSM_PAGE_SHIFT;
    }
    if (args->nadopt > COH_MAX_WINDOWS - 1)
        return DSM_ERR_INVALID;
    *pages = n;
    return DSM_OK;
}

/* The first half of the sharable space, which needs no peer: the memfd
 * (sized for the region and the adopted windows), the region window at
 * its fixed address, and this node's arena.  Run by dsm_coh_init, or
 * earlier by dsm_coh_heap_early. */
static dsm_status_t setup_region(const dsm_coh_init_args_t *args)
{
    const dsm_config_t *cfg = dsm_config();
    size_t adopt_pages;
    dsm_status_t st = adopt_pages_of(args, &adopt_pages);
    if (st != DSM_OK)
        return st;
    size_t heap_pages = cfg->region_size >> DSM_PAGE_SHIFT;
    stack_pages = (args->main_stack_bytes + DSM_PAGE_SIZE - 1) >>
                  DSM_PAGE_SHIFT;
    if (cfg->region_size % DSM_PAGE_SIZE || cfg->region_base % DSM_PAGE_SIZE ||
        heap_pages < stack_pages + (size_t)coh.size * 16) {
        dsm_log(DSM_LOG_ERROR, "DSM_REGION_BASE=0x%" PRIxPTR " DSM_REGION_SIZE"
                "=%zu: both must be multiples of %zu and the size at least "
                "the main stack (%zu bytes) plus 16 pages per node",
                cfg->region_base, cfg->region_size, DSM_PAGE_SIZE,
                stack_pages << DSM_PAGE_SHIFT);
        return DSM_ERR_INVALID;
    }
    coh.npages = adopt_pages + heap_pages;
    if (coh.npages > UINT32_MAX) {
        dsm_log(DSM_LOG_ERROR, "DSM_REGION_SIZE=%zu: at most %llu pages",
                cfg->region_size, (unsigned long long)UINT32_MAX);
        return DSM_ERR_INVALID;
    }
    st = dsm_sys_region_create(coh.npages << DSM_PAGE_SHIFT, &coh.region);
    if (st != DSM_OK)
        return st;
    add_window(cfg->region_base, heap_pages);
    st = dsm_sys_region_map_window(&coh.region, cfg->region_base,
                                   cfg->region_size, 0);
    if (st != DSM_OK)
        return st;
    coh.heap_base = cfg->region_base + (stack_pages << DSM_PAGE_SHIFT);
    coh.arena_bytes = ((heap_pages - stack_pages) / (size_t)coh.size)
                      << DSM_PAGE_SHIFT;
    /* the sharing report's tables first: the arena records its blocks'
     * call sites from its first allocation on (coh_heap_sites.h) */
    if ((st = coh_sharing_setup()) != DSM_OK)
        return st;
    return coh_heap_setup();
}

/* The second half: the adopted windows (their contents as they are now),
 * the protocol's tables and every page's home and initial state. */
static dsm_status_t setup_windows(const dsm_coh_init_args_t *args)
{
    dsm_status_t st;
    for (int i = 0; i < args->nadopt; i++) {
        add_window(args->adopt[i].base, args->adopt[i].len >> DSM_PAGE_SHIFT);
        st = dsm_sys_region_adopt_window(&coh.region, args->adopt[i].base,
                                         args->adopt[i].len,
                                         coh.win[i + 1].first << DSM_PAGE_SHIFT);
        if (st != DSM_OK)
            return st;
    }
    coh.pages = coh_table_alloc(sizeof(coh_page_t) * coh.npages);
    coh.page_locks = coh_table_alloc(sizeof(dsm_mutex_t) * COH_PAGE_LOCK_STRIPES);
    coh.twins = coh_table_alloc(coh.npages << DSM_PAGE_SHIFT);
    coh.dirty = coh_table_alloc(sizeof(uint32_t) * coh.npages);
    coh.dirty_spare = coh_table_alloc(sizeof(uint32_t) * coh.npages);
    coh.slots = coh_table_alloc(sizeof(coh_slot_t) * COH_MAX_SLOTS);
    if (!coh.pages || !coh.page_locks || !coh.twins || !coh.dirty ||
        !coh.dirty_spare || !coh.slots || control_ensure() != DSM_OK ||
        coh_check_setup() != DSM_OK)
        return DSM_ERR_NOMEM;
    /* one slot per page of the whole space, nearly all never touched: a
     * core dump would walk all of it (seconds) for a few twins */
    dsm_sys_dump_exclude(coh.twins, coh.npages << DSM_PAGE_SHIFT);
    init_window_pages(&coh.win[0], home_heap);
    for (int i = 1; i < coh.nwin; i++)
        init_window_pages(&coh.win[i], home_globals);
    return DSM_OK;
}

/* The rank and size of this node from the configuration (loaded again). */
static dsm_status_t load_identity(void)
{
    dsm_status_t st = dsm_config_load();
    if (st != DSM_OK)
        return st;
    const dsm_config_t *cfg = dsm_config();
    coh.rank = cfg->rank;
    coh.size = cfg->size;
    if (coh.size > COH_MAX_NODES) {
        dsm_log(DSM_LOG_ERROR, "DSM_SIZE=%d: at most %d nodes", coh.size,
                COH_MAX_NODES);
        return DSM_ERR_INVALID;
    }
    return DSM_OK;
}

/* The arguments dsm_coh_heap_early was given, which dsm_coh_init must
 * repeat: the memfd was sized for them. */
static dsm_coh_init_args_t early_args;

static int same_args(const dsm_coh_init_args_t *a,
                     const dsm_coh_init_args_t *b)
{
    if (a->nadopt != b->nadopt || a->main_stack_bytes != b->main_stack_bytes)
        return 0;
    for (int i = 0; i < a->nadopt; i++)
        if (a->adopt[i].base != b->adopt[i].base ||
            a->adopt[i].len != b->adopt[i].len)
            return 0;
    return 1;
}

dsm_status_t dsm_coh_heap_early(const dsm_coh_init_args_t *args)
{
    if (coh.initialized || coh.heap_early)
        return DSM_ERR_STATE;
    dsm_status_t st = load_identity();
    if (st != DSM_OK || (st = setup_region(args)) != DSM_OK)
        return st;
    /* nobody else reads this arena before dsm_coh_init, which gives every
     * page its protection; until then only this node's own arena is open */
    uintptr_t lo = coh.heap_base + coh.arena_bytes * (size_t)coh.rank;
    if (dsm_sys_protect(lo, coh.arena_bytes, DSM_PROT_RW) != 0)
        return DSM_ERR_IO;
    early_args = *args;
    coh.heap_early = 1;
    return DSM_OK;
}

dsm_status_t dsm_init_sharable(void *start, void *end, void *unscripted_start)
{
    /* a program linked by dsmcc is running already: nothing to do */
    if (coh.initialized && coh.started_by_runtime)
        return DSM_OK;
    if (unscripted_start && !start) {
        dsm_log(DSM_LOG_ERROR, "the program has DSM_SHARABLE variables but "
                "was not linked with dsm_sharable.ld: link it with dsmcc or "
                "add -Wl,-T,dsm_sharable.ld");
        return DSM_ERR_INVALID;
    }
    dsm_coh_init_args_t args = {.nadopt = 0};
    if (start && end != start) {
        args.adopt[0].base = (uintptr_t)start;
        args.adopt[0].len = (size_t)((char *)end - (char *)start);
        args.nadopt = 1;
        if (args.adopt[0].base % DSM_PAGE_SIZE ||
            args.adopt[0].len % DSM_PAGE_SIZE) {
            dsm_log(DSM_LOG_ERROR, "the DSM_SHARABLE section [%p, %p) is not "
                    "page-aligned: link with dsm_sharable.ld", start, end);
            return DSM_ERR_INVALID;
        }
    }
    dsm_status_t st = dsm_coh_init(&args);
    coh.started_by_runtime = 0;
    return st;
}

dsm_status_t dsm_coh_init(const dsm_coh_init_args_t *args)
{
    if (coh.initialized)
        return DSM_ERR_STATE;
    dsm_status_t st;
    if (coh.heap_early) {
        /* the region and this node's arena are up, with blocks in use */
        if (!same_args(args, &early_args)) {
            dsm_log(DSM_LOG_ERROR, "dsm_coh_init: arguments differ from "
                    "dsm_coh_heap_early's");
            return DSM_ERR_INVALID;
        }
    } else if ((st = load_identity()) != DSM_OK ||
               (st = setup_region(args)) != DSM_OK) {
        return st;
    }
    if ((st = setup_windows(args)) != DSM_OK ||
        (st = coh_interval_setup()) != DSM_OK ||
        (st = coh_acquire_setup()) != DSM_OK ||
        (st = coh_prefetch_setup()) != DSM_OK ||
        (st = coh_refresh_setup()) != DSM_OK ||
        (st = coh_want_setup()) != DSM_OK ||
        (st = coh_push_setup()) != DSM_OK ||
        (st = coh_barrier_setup()) != DSM_OK ||
        (st = coh_migrate_setup()) != DSM_OK ||
        (st = coh_lock_setup()) != DSM_OK)
        return st;
    if ((st = coh_fault_register_handlers()) != DSM_OK ||
        (st = coh_interval_register_handlers()) != DSM_OK ||
        (st = coh_barrier_register_handlers()) != DSM_OK ||
        (st = coh_lock_register_handlers()) != DSM_OK ||
        (st = coh_heap_register_handlers()) != DSM_OK ||
        (st = coh_migrate_register_handlers()) != DSM_OK ||
        (st = coh_atomic_register_handlers()) != DSM_OK ||
        (st = coh_report_register_handlers()) != DSM_OK)
        return st;

    dsm_tp_segments_t seg = {
        .base = {coh.region.rt, coh.control},
        .size = {coh.region.size, coh.control_size},
    };
    /* peers on this host read and write our pages and words without our
     * help */
    if ((st = dsm_tp_offer_mapping(DSM_TP_SEG_REGION, coh.region.memfd)) !=
            DSM_OK ||
        (st = dsm_tp_offer_mapping(DSM_TP_SEG_CONTROL, coh.control_fd)) !=
            DSM_OK ||
        (st = dsm_tp_init(&seg)) != DSM_OK)
        return st;
    if ((st = dsm_sys_fault_install(fault_entry)) != DSM_OK)
        return st;
    coh.initialized = 1;
    coh.heap_early = 0;
    coh.started_by_runtime = 1;
    coh_report_start();     /* the run's clock: the job is wired up */
    return DSM_OK;
}

static void final_barrier_call(void *arg)
{
    (void)arg;
    coh_barrier_global(NULL, 0);
}

dsm_status_t dsm_finalize(void)
{
    /* a program linked by dsmcc: the runtime finalizes when it exits */
    if (coh.initialized && coh.started_by_runtime)
        return DSM_OK;
    return dsm_coh_finalize();
}

dsm_status_t dsm_coh_finalize(void)
{
    if (!coh.initialized)
        return DSM_ERR_STATE;
    /* everyone is done with sharable memory before anyone leaves */
    dsm_sys_on_rtstack(final_barrier_call, NULL);
    /* node-local from now on: direct pages keep their contents, and a
     * write makes them this process's own */
    coh_direct_end(0, coh.npages, 1);
    /* one table (and the sharing report) for the whole job, at node 0 */
    coh_report_finalize();
    dsm_status_t st = dsm_tp_finalize();
    coh.initialized = 0;
    dsm_sys_fault_uninstall();
    /* sharable memory stays mapped, node-local from now on */
    for (int i = 0; i < coh.nwin; i++)
        dsm_sys_protect(coh.win[i].base, coh.win[i].pages << DSM_PAGE_SHIFT,
                        DSM_PROT_RW);
    return st;
}

int dsm_node_id(void) { return coh.initialized ? coh.rank : dsm_config()->rank; }
int dsm_num_nodes(void) { return coh.initialized ? coh.size : dsm_config()->size; }
