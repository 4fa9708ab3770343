/*
 * tp_source.c - the progress registry (tp_source.h).
 *
 * Layer: transport.  tp_sources_add / tp_sources_clear: dsm_tp_init and
 * dsm_tp_finalize only, while no other thread progresses; tp_sources_run
 * and tp_progress_once (declared in tp_internal.h): any thread, the fault
 * handler included.
 */
#include "base_log.h"
#include "tp_internal.h"
#include "tp_source.h"

/* Copies, not pointers: a round loads each poll function directly. */
static tp_source_t sources[TP_SOURCES_MAX];
static int nsources;

void tp_sources_add(const tp_source_t *src)
{
    if ((src->flags & TP_SOURCE_WORKER) && !tp.worker)
        return;
    if (nsources == TP_SOURCES_MAX)
        dsm_fatal("too many progress sources (adding %s)", src->name);
    sources[nsources++] = *src;
}

void tp_sources_clear(void) { nsources = 0; }

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
