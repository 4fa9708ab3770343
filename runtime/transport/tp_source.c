/*
 * tp_source.c - the progress registry (tp_source.h).
 *
 * Layer: transport.  tp_sources_add / tp_sources_clear: dsm_tp_init and
 * dsm_tp_finalize only, while no other thread progresses; the rest: any
 * thread, the fault handler included.
 */
#include "base_log.h"
#include "tp_source.h"
#include "tp_state.h"

/* Copies, not pointers: a round loads each poll function directly.  The
 * sources with a poll function, and apart those with hooks, so that a
 * round looks at nothing else. */
static tp_source_t sources[TP_SOURCES_MAX];
static int nsources;
static tp_source_t hooked[TP_SOURCES_MAX];
static int nhooked;
static const tp_source_t *watcher;    /* the one source with watch */

void tp_sources_add(const tp_source_t *src)
{
    if ((src->flags & TP_SOURCE_WORKER) && !tp.worker)
        return;
    if (nsources == TP_SOURCES_MAX || nhooked == TP_SOURCES_MAX)
        dsm_fatal("too many progress sources (adding %s)", src->name);
    if (src->watch && (watcher || !src->readable))
        dsm_fatal("progress source %s: one watcher, with readable",
                  src->name);
    if (src->poll)
        sources[nsources++] = *src;
    if (src->watch || src->sleep_begin || src->waiting_on ||
        src->cpu_shared) {
        hooked[nhooked] = *src;
        if (src->watch)
            watcher = &hooked[nhooked];
        nhooked++;
    }
}

void tp_sources_clear(void)
{
    nsources = nhooked = 0;
    watcher = NULL;
}

int tp_sources_run(unsigned skip)
{
    int n = 0;
    for (int i = 0; i < nsources; i++)
        if (!(sources[i].flags & skip))
            n += sources[i].poll();
    return n;
}

/* The round every wait makes: here, beside the list, with nothing to skip. */
int tp_progress_once(void)
{
    int n = 0;
    for (int i = 0; i < nsources; i++)
        n += sources[i].poll();
    return n;
}

int tp_sources_watch(struct pollfd *fds, int *tags)
{
    return watcher ? watcher->watch(fds, tags) : 0;
}

void tp_sources_readable(int tag)
{
    if (watcher)
        watcher->readable(tag);
}

int tp_sources_sleep_begin(void)
{
    for (int i = 0; i < nhooked; i++)
        if (hooked[i].sleep_begin && hooked[i].sleep_begin()) {
            /* work waits in source i (which undid its part): wake the
             * others that began */
            while (i-- > 0)
                if (hooked[i].sleep_end)
                    hooked[i].sleep_end();
            return 1;
        }
    return 0;
}

void tp_sources_sleep_end(void)
{
    for (int i = 0; i < nhooked; i++)
        if (hooked[i].sleep_end)
            hooked[i].sleep_end();
}

void tp_sources_waiting_on(int cpu)
{
    for (int i = 0; i < nhooked; i++)
        if (hooked[i].waiting_on)
            hooked[i].waiting_on(cpu);
}

int tp_sources_cpu_shared(int cpu)
{
    for (int i = 0; i < nhooked; i++)
        if (hooked[i].cpu_shared && hooked[i].cpu_shared(cpu))
            return 1;
    return 0;
}
