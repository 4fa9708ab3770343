/*
 * shim_cxx_atexit.c - the destructors of a C++ program's static objects
 * run once, on node 0, while the job is still up.
 *
 * clang registers the destructor of every static object with
 * __cxa_atexit (glibc's atexit calls it too), and dsmc++ links with
 * -Wl,--wrap=__cxa_atexit, so the program's registrations come here:
 *
 *   - before main (the constructors, on every node): registered with the
 *     C library as usual, through a record that runs the destructor on
 *     node 0 only.  The objects are node 0's, shared by the cluster; the
 *     other nodes' copies were overwritten at start-up, and running their
 *     destructors after the node left the job would follow pointers into
 *     pages that are no longer kept coherent.
 *   - while the job runs (function-local statics constructed in main or
 *     in a region, on any node; atexit() in main): pushed on one list in
 *     sharable memory (its head is in the program's data, see shim_cxx.h)
 *     under a cluster lock.  Node 0 runs the list, newest first, from a
 *     handler registered just before main, so it runs before the
 *     destructors registered before main, as C++ orders them.
 *
 * fj_early_heap registers the end of the job (fj_exit.c) before the
 * constructors register anything, so at exit node 0 destroys everything
 * first, coherently, and then shuts the job down.
 *
 * Layer: compiler-shim.  __wrap___cxa_atexit: any application thread.
 * shim_cxx_before_main: __wrap_main, once.  The handlers: exit().
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "base_config.h"
#include "base_log.h"
#include "dsm.h"
#include "forkjoin.h"
#include "shim_cxx.h"

typedef void (*exit_fn_t)(void *);

SHIM_EXPORT int __wrap___cxa_atexit(exit_fn_t fn, void *arg, void *dso);

typedef struct exit_record {
    exit_fn_t fn;
    void *arg;
    struct exit_record *next;
} exit_record_t;

typedef int (*cxa_atexit_t)(exit_fn_t, void *, void *);

static int libc_atexit(exit_fn_t fn, void *arg, void *dso)
{
    static cxa_atexit_t real;
    if (!real) {
        real = (cxa_atexit_t)dlsym(RTLD_DEFAULT, "__cxa_atexit");
        if (!real)
            dsm_fatal("cannot find the C library's __cxa_atexit");
    }
    return real(fn, arg, dso);
}

static int on_node0(void) { return dsm_config()->rank == 0; }

/* While the job runs, a registration goes to the cluster's list. */
static int job_running(void) { return fj_started() && fj_heap_open(); }

/* A destructor registered before main. */
static void run_on_node0(void *arg)
{
    exit_record_t *r = arg;
    exit_fn_t fn = r->fn;
    void *fn_arg = r->arg;
    free(r);
    if (on_node0())
        fn(fn_arg);
}

static void push_job_exit(exit_fn_t fn, void *arg)
{
    dsm_cxx_program_t *state = shim_cxx_state();
    if (!state)
        dsm_fatal("a C++ static destructor registered during the job by a "
                  "program not linked by dsmc++: link it with dsmc++");
    exit_record_t *r = dsm_malloc(sizeof *r);
    if (!r)
        dsm_fatal("out of sharable memory for a static destructor");
    r->fn = fn;
    r->arg = arg;
    fj_named_lock(&state->job_exits, "registering a static destructor");
    r->next = state->job_exits;
    state->job_exits = r;
    fj_named_unlock(&state->job_exits, "registering a static destructor");
}

void shim_cxx_at_job_exit(void (*fn)(void *), void *arg)
{
    push_job_exit(fn, arg);
}

int __wrap___cxa_atexit(exit_fn_t fn, void *arg, void *dso)
{
    if (job_running()) {
        push_job_exit(fn, arg);
        return 0;
    }
    exit_record_t *r = malloc(sizeof *r);
    if (!r)
        return -1;
    r->fn = fn;
    r->arg = arg;
    r->next = NULL;
    int rc = libc_atexit(run_on_node0, r, dso);
    if (rc != 0)
        free(r);
    return rc;
}

/* Node 0 at exit: the list, newest first.  A destructor may register
 * another (it then runs next) or start a region: nothing is held while
 * one runs. */
static void run_job_exits(void *unused)
{
    (void)unused;
    dsm_cxx_program_t *state = shim_cxx_state();
    if (!on_node0() || !job_running())
        return;
    for (;;) {
        fj_named_lock(&state->job_exits, "running static destructors");
        exit_record_t *r = state->job_exits;
        if (r)
            state->job_exits = r->next;
        fj_named_unlock(&state->job_exits, "running static destructors");
        if (!r)
            return;
        exit_fn_t fn = r->fn;
        void *arg = r->arg;
        dsm_free(r);
        fn(arg);
    }
}

void shim_cxx_before_main(void)
{
    if (!shim_cxx_program())
        return;
    if (libc_atexit(run_job_exits, NULL, NULL) != 0)
        dsm_fatal("cannot register the end of the job's static destructors");
}
