/*
 * gomp_parallel.c - parallel regions in GCC's ABI: GOMP_parallel, the
 * host teams construct (GOMP_teams_reg), the
 * combined parallel loops and sections (the team opens the loop before the
 * body, whose first call is then a *_next), and the entry dsm's GCC
 * plug-in calls before each of them to announce the size of the region's
 * data block.
 *
 * A region becomes one fj_fork whose microtask calls fn(data).  The data
 * block stays where gcc put it, on the encountering thread's (sharable)
 * stack; every other argument travels by value in the FORK.
 *
 * A region that will not span the nodes (if(false), num_threads(1), a
 * nested region) is preceded by a release of this node's writes.  gcc
 * initialises a reduction variable it copies into the data block with a
 * plain store, and the team then combines into it with atomics, which
 * the runtime performs at the word's home; a fork across nodes releases
 * that store to the home first, a region run on this node alone does
 * not, and when the home is another node (homes follow their writers)
 * the atomics would start from the home's stale value.
 *
 * copyin of a threadprivate variable that gcc passes by address (arrays,
 * Fortran common blocks): the block then holds the master's address of
 * the variable, in its thread-local storage, and the members other than
 * thread 0 copy from that address.  On another node that address is the
 * same offset in that node's main thread's own block (nodes have the same
 * layout): so before the body the node's main thread, itself a member,
 * takes the master's value into its own copy from a sharable snapshot
 * (fj_tls_snapshot, fj_tls_restore), and a team barrier orders that
 * before the others read it.  Finding those addresses needs the block's
 * size, which only the plug-in knows (__dsm_gomp_data_size); without it,
 * copyin by address does not reach other nodes.  Scalars gcc copies by
 * value into the block need nothing.
 *
 * Layer: compiler-shim.  Application threads.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base_log.h"
#include "coherence.h"
#include "dsm.h"
#include "forkjoin.h"
#include "gomp_abi.h"

GOMP_EXPORT void __dsm_gomp_data_size(size_t size);
GOMP_EXPORT void GOMP_parallel(void (*fn)(void *), void *data,
                               unsigned num_threads, unsigned flags);
GOMP_EXPORT void GOMP_teams_reg(void (*fn)(void *), void *data,
                                unsigned num_teams, unsigned thread_limit,
                                unsigned flags);
GOMP_EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data,
                                        unsigned num_threads, unsigned count,
                                        unsigned flags);

/* Threadprivate variables passed by address that one region can carry. */
#define COPYIN_REFS_MAX 16

typedef struct copyin_ref {
    void *snapshot;          /* sharable copy of the master's variable */
    void *master;            /* the master's address of it */
} copyin_ref_t;

static __thread size_t pending_data_size;

void __dsm_gomp_data_size(size_t size) { pending_data_size = size; }

size_t gomp_take_data_size(void)
{
    size_t size = pending_data_size;
    pending_data_size = 0;
    return size;
}

/* The threadprivate addresses in the data block, each with a snapshot
 * written now (before the fork's release); returns how many. */
static int find_copyin_refs(void *data, size_t size, copyin_ref_t *refs,
                            const void *caller)
{
    int n = 0;
    for (size_t off = 0; off + sizeof(void *) <= size;
         off += sizeof(void *)) {
        void *p;
        memcpy(&p, (char *)data + off, sizeof p);
        void *snapshot = fj_tls_snapshot(p);
        if (!snapshot)
            continue;
        if (n == COPYIN_REFS_MAX) {
            char where[512];
            dsm_fatal("dsmomp: a parallel region (%s) copies in more than "
                      "%d threadprivate arrays or common blocks",
                      gomp_location(caller, where, sizeof where),
                      COPYIN_REFS_MAX);
        }
        refs[n++] = (copyin_ref_t){snapshot, p};
    }
    return n;
}

/* Before the body: thread 0's variables, passed by address, reach the
 * other nodes' main threads (see the header). */
static void take_copyin(const copyin_ref_t *refs, int n)
{
    if (fj_thread_num() != 0) {
        int restored = 0;
        for (int i = 0; i < n; i++)
            restored += fj_tls_restore(refs[i].master, refs[i].snapshot);
        if (dsm_node_id() != 0 && fj_process_thread_num() == 0 &&
            restored != n)
            dsm_fatal("dsmomp: copyin of a threadprivate array: node %d's "
                      "main thread has its thread-local storage elsewhere "
                      "than node 0's master (the nodes' layouts differ)",
                      dsm_node_id());
    }
    fj_barrier();
}

/* Every argument but refs is a value of the FORK message. */
static void microtask(int32_t *gtid, int32_t *btid, void (*fn)(void *),
                      void *data, const copyin_ref_t *refs, uintptr_t nrefs,
                      uintptr_t work, long start, long end, long incr,
                      long chunk)
{
    (void)gtid;
    (void)btid;
    if (nrefs)
        take_copyin(refs, (int)nrefs);
    if ((work & 0xff) != GOMP_WORK_NONE)
        gomp_loop_open_long((int)(work >> 8), start, end, incr, chunk);
    fn(data);
}

/* The DSM's page faults arrive as SIGSEGV through a handler installed
 * with SA_SIGINFO.  A gfortran main program compiled with -fbacktrace
 * (gfortran's default; dsmfort adds -fno-backtrace) has libgfortran
 * install its own handler with signal(2), which would take the faults and
 * kill the program with a backtrace: say so instead, before the first
 * region of a job spanning nodes. */
static void check_fault_handler(void)
{
    static int checked;
    if (checked || dsm_num_nodes() < 2)
        return;
    checked = 1;
    struct sigaction now;
    if (sigaction(SIGSEGV, NULL, &now) == 0 && !(now.sa_flags & SA_SIGINFO))
        dsm_fatal("dsmomp: the program replaced the runtime's SIGSEGV "
                  "handler (a Fortran main program compiled with "
                  "-fbacktrace, gfortran's default?): build it with "
                  "dsmfort");
}

/* Will this region stay on this node (see the header)?  Conservative:
 * true may only cost a release. */
static bool stays_on_node(unsigned num_threads)
{
    return num_threads == 1 || fj_active_level() > 0 ||
           (num_threads == 0 && fj_icv_nthreads() < 2);
}

static void release_writes(void)
{
    dsm_status_t st = dsm_coh_sync(DSM_COH_RELEASE);
    if (st != DSM_OK && st != DSM_ERR_STATE)
        dsm_fatal("dsmomp: releasing this node's writes before a region "
                  "it runs alone: %s", dsm_status_string(st));
}

/* For fj_fork's messages: the code that started the region. */
static const char *region_where(const void *caller, char *buf, size_t size)
{
    snprintf(buf, size, "code at %p (a GOMP_parallel call)", caller);
    return buf;
}

void gomp_parallel(const void *caller, void (*fn)(void *), void *data,
                   unsigned num_threads, gomp_work_t work,
                   const gomp_team_loop_t *loop)
{
    static const gomp_team_loop_t no_loop = {0, 0, 0, 1, 0};
    if (!loop)
        loop = &no_loop;
    check_fault_handler();
    size_t size = gomp_take_data_size();
    copyin_ref_t refs[COPYIN_REFS_MAX];
    int nrefs = 0;
    if (size && data && dsm_num_nodes() > 1 && fj_active_level() == 0)
        nrefs = find_copyin_refs(data, size, refs, caller);
    if (dsm_num_nodes() > 1 && stays_on_node(num_threads))
        release_writes();
    if (num_threads > 0)
        fj_push_num_threads(num_threads > INT32_MAX ? INT32_MAX
                                                    : (int)num_threads);
    void *args[] = {
        (void *)fn, data, nrefs ? refs : NULL, (void *)(uintptr_t)nrefs,
        (void *)(uintptr_t)((unsigned)work |
                            (unsigned)loop->kmp_schedule << 8),
        (void *)loop->start, (void *)loop->end, (void *)loop->incr,
        (void *)loop->chunk,
    };
    char where[96];
    fj_fork(region_where(caller, where, sizeof where),
            (fj_microtask_t)microtask, (int)(sizeof args / sizeof args[0]),
            args);
}

/* flags: the proc_bind clause, a placement hint dsmomp does not need. */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                   unsigned flags)
{
    (void)flags;
    gomp_parallel(__builtin_return_address(0), fn, data, num_threads,
                  GOMP_WORK_NONE, NULL);
}

void GOMP_parallel_sections(void (*fn)(void *), void *data,
                            unsigned num_threads, unsigned count,
                            unsigned flags)
{
    (void)flags;
    gomp_team_loop_t sections = {GOMP_KMP_DYNAMIC, 0, (long)count, 1, 1};
    gomp_parallel(__builtin_return_address(0), fn, data, num_threads,
                  GOMP_WORK_SECTIONS, &sections);
}

/* teams on the host (gcc 11 and later): num_teams teams in turn (0: no
 * clause, one team, where libgomp makes 3), whose parallel regions span
 * the cluster (fj_teams.c); flags carry nothing for the host. */
void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                    unsigned thread_limit, unsigned flags)
{
    (void)flags;
    check_fault_handler();
    char where[512];
    fj_teams_run(gomp_location(__builtin_return_address(0), where,
                               sizeof where),
                 num_teams > INT32_MAX ? INT32_MAX : (int)num_teams,
                 thread_limit > INT32_MAX ? 0 : (int)thread_limit, fn, data);
}

/* ---- combined parallel loops -------------------------------------------- */

#define PARALLEL_LOOP(NAME, KMP)                                              \
    GOMP_EXPORT void GOMP_parallel_loop_##NAME(                               \
        void (*fn)(void *), void *data, unsigned num_threads, long start,     \
        long end, long incr, long chunk_size, unsigned flags);                \
    void GOMP_parallel_loop_##NAME(void (*fn)(void *), void *data,            \
                                   unsigned num_threads, long start,          \
                                   long end, long incr, long chunk_size,      \
                                   unsigned flags)                            \
    {                                                                         \
        (void)flags;                                                          \
        gomp_team_loop_t loop = {KMP, start, end, incr, chunk_size};          \
        gomp_parallel(__builtin_return_address(0), fn, data, num_threads,     \
                      GOMP_WORK_LOOP, &loop);                                 \
    }

#define PARALLEL_LOOP_RUNTIME(NAME)                                           \
    GOMP_EXPORT void GOMP_parallel_loop_##NAME(                               \
        void (*fn)(void *), void *data, unsigned num_threads, long start,     \
        long end, long incr, unsigned flags);                                 \
    void GOMP_parallel_loop_##NAME(void (*fn)(void *), void *data,            \
                                   unsigned num_threads, long start,          \
                                   long end, long incr, unsigned flags)       \
    {                                                                         \
        (void)flags;                                                          \
        gomp_team_loop_t loop = {GOMP_KMP_RUNTIME, start, end, incr, 0};      \
        gomp_parallel(__builtin_return_address(0), fn, data, num_threads,     \
                      GOMP_WORK_LOOP, &loop);                                 \
    }

/* static with chunk 0 is balanced blocks; the loop opens with the chunk as
 * given (gomp_loop_open picks the kind). */
PARALLEL_LOOP(static, GOMP_KMP_STATIC_CHUNKED)
PARALLEL_LOOP(dynamic, GOMP_KMP_DYNAMIC)
PARALLEL_LOOP(guided, GOMP_KMP_GUIDED)
PARALLEL_LOOP(nonmonotonic_dynamic, GOMP_KMP_DYNAMIC)
PARALLEL_LOOP(nonmonotonic_guided, GOMP_KMP_GUIDED)
PARALLEL_LOOP_RUNTIME(runtime)
PARALLEL_LOOP_RUNTIME(nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(maybe_nonmonotonic_runtime)
