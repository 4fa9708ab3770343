/*
 * fj_start.c - start-up of a node: configuration, the program's writable
 * data and node 0's main stack made sharable, the fork-join CONTROL words,
 * the thread pool; then main on node 0, the worker loop elsewhere.
 *
 * A C++ program's static constructors run on every node before main and
 * allocate; fj_early_heap, called before them, opens this node's arena of
 * the sharable heap to the program already, so that what node 0's
 * constructors build is in sharable memory when node 0's globals become
 * the cluster's (design.md, "C++ programs").
 *
 * Layer: forkjoin.  Entry points: fj_main, called once by __wrap_main on
 * the process's main thread; fj_early_heap, once before it, from the
 * program's first constructor, on the same thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base_config.h"
#include "base_log.h"
#include "coherence.h"
#include "fj_internal.h"
#include "fj_loops.h"
#include "sys_stack.h"
#include "fj_mailbox.h"
#include "fj_partials.h"
#include "sys_region.h"

fj_node_t fj;

typedef struct main_call {
    fj_main_t fn;
    int argc;
    char **argv, **envp;
    int status;
} main_call_t;

static void call_main(void *arg)
{
    main_call_t *c = arg;
    c->status = c->fn(c->argc, c->argv, c->envp);
}

/* A copy of a NULL-terminated string vector in sharable memory, so that
 * argv[i] means the same on every node when a region reads it. */
static char **sharable_vector(char **v)
{
    size_t n = 0, bytes = 0;
    for (; v[n]; n++)
        bytes += strlen(v[n]) + 1;
    char **copy = dsm_malloc((n + 1) * sizeof *copy + bytes);
    if (!copy)
        dsm_fatal("out of sharable memory for the program's arguments");
    char *text = (char *)(copy + n + 1);
    for (size_t i = 0; i < n; i++) {
        copy[i] = text;
        text = stpcpy(text, v[i]) + 1;
    }
    copy[n] = NULL;
    return copy;
}

static void team_init(fj_team_t *team)
{
    pthread_mutex_init(&team->loop_mutex, NULL);
    pthread_cond_init(&team->loop_cond, NULL);
}

/* The sharable space of a dsmcc program: its writable data, node 0's main
 * stack and the heap region. */
static void space_args(dsm_coh_init_args_t *args)
{
    memset(args, 0, sizeof *args);
    uintptr_t base;
    size_t len;
    if (fj_program_window(&base, &len) != DSM_OK)
        dsm_fatal("cannot make the program's global variables sharable");
    if (len) {
        args->adopt[0].base = base;
        args->adopt[0].len = len;
        args->nadopt = 1;
    }
    /* every node reserves the same layout; only node 0 runs on it */
    args->main_stack_bytes = dsm_config()->stack_size;
}

static void load_config(void)
{
    if (dsm_config_load() != DSM_OK)
        dsm_fatal("invalid DSM_* environment (see the message above)");
}

void fj_early_heap(void)
{
    load_config();
    dsm_coh_init_args_t args;
    space_args(&args);
    dsm_status_t st = dsm_coh_heap_early(&args);
    if (st != DSM_OK)
        dsm_fatal("cannot open the sharable heap before the program's "
                  "constructors: %s", dsm_status_string(st));
    __atomic_store_n(&fj.heap_open, 1, __ATOMIC_RELEASE);
    /* registered before the constructors register their destructors, so
     * it runs after them: they run while the job is still up */
    fj_exit_register();
}

static void join_job(void)
{
    dsm_coh_init_args_t args;
    space_args(&args);

    void *control;
    dsm_status_t st = dsm_coh_control_reserve(sizeof(fj_control_t),
                                              &fj.control_off, &control);
    if (st != DSM_OK)
        dsm_fatal("cannot reserve the fork-join control words: %s",
                  dsm_status_string(st));
    fj.control = control;
    fj_mailbox_register();
    fj_partials_register();
    fj_cancel_register();
    fj_doacross_register();
    if ((st = dsm_coh_init(&args)) != DSM_OK)
        dsm_fatal("cannot start the DSM runtime: %s", dsm_status_string(st));
    /* one thread per node takes part in every dsm_barrier; the node's
     * threads meet in the team barrier first */
    if ((st = dsm_barrier_threads(1)) != DSM_OK)
        dsm_fatal("dsm_barrier_threads: %s", dsm_status_string(st));
    /* while that thread is in it, the others wait or are idle */
    if ((st = dsm_barrier_quiescent(1)) != DSM_OK)
        dsm_fatal("dsm_barrier_quiescent: %s", dsm_status_string(st));
    if (fj_altstack_thread() != DSM_OK)
        dsm_fatal("cannot set up the alternate signal stack");
}

/* With several nodes, every node's standard output leaves by lines
 * (DSM_LINE_OUTPUT): a pipe or a file is otherwise written when a node's
 * buffer fills or the node exits, so what a program prints in order (an
 * ordered loop, a critical section, a region then serial code) came out
 * grouped by node.  A terminal is line-buffered already. */
static void output_by_lines(const dsm_config_t *cfg)
{
    if (cfg->line_output && cfg->size > 1 && !isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
}

void fj_main(fj_main_t main_fn, int argc, char **argv, char **envp)
{
    load_config();
    const dsm_config_t *cfg = dsm_config();
    output_by_lines(cfg);
    fj.rank = cfg->rank;
    fj.size = cfg->size;
    fj.threads = cfg->threads;
    if (fj_icv_load(fj.size * fj.threads) != DSM_OK)
        dsm_fatal("invalid OMP_* environment (see the message above)");
    join_job();

    team_init(&fj.team);
    fj.thread = calloc((size_t)fj.threads, sizeof *fj.thread);
    if (!fj.thread)
        dsm_fatal("out of memory for the thread table");
    for (int i = 0; i < fj.threads; i++)
        fj.thread[i] = fj_thread_create(i);
    if (fj_rtstack_thread() != DSM_OK)
        dsm_fatal("out of memory for the main thread's runtime stack");
    fj_set_self(fj.thread[0]);
    fj.started = 1;
    __atomic_store_n(&fj.heap_open, 1, __ATOMIC_RELEASE);
    fj_exit_register();
    fj_pool_start();       /* ends the job naming a failed call */

    if (fj.rank == 0) {
        void *lo;
        size_t len;
        dsm_coh_main_stack(&lo, &len);
        if (!lo || len == 0)
            dsm_fatal("the runtime reserved no sharable main stack "
                      "(DSM_STACK_SIZE)");
        main_call_t call = {main_fn, argc, sharable_vector(argv),
                            sharable_vector(envp), 0};
        dsm_sys_run_on_stack(lo, len, call_main, &call);
        exit(call.status);
    }
    void *stack = dsm_aligned_alloc(DSM_PAGE_SIZE, fj.worker_stack);
    if (!stack)
        dsm_fatal("out of sharable memory for a %zu-byte worker stack "
                  "(OMP_STACKSIZE)", fj.worker_stack);
    dsm_sys_run_on_stack(stack, fj.worker_stack, fj_worker_loop, NULL);
    dsm_fatal("the worker loop returned");
}
