/*
 * fj_reduce.c - reductions across threads and nodes, never through inline
 * atomics (those would bypass the DSM).  The members of one node combine
 * into the private copies of the first to arrive (reduce_func runs on
 * pointers valid in that node); that thread - one per node - gets 1 and
 * combines into the shared original under a cluster lock named by the
 * reduction's lock variable; the others get 0.  The barrier that follows
 * the construct (or the region's join) makes the result visible.
 *
 * Layer: forkjoin.  Entry points: fj_reduce_begin, fj_reduce_end.
 * Members of a region; a lone thread gets 1 at once.
 */
#include <stdint.h>

#include "fj_internal.h"

int fj_reduce_begin(void *data, void (*combine)(void *lhs, void *rhs),
                    const void *key)
{
    fj_thread_t *self = fj_self();
    if (fj_alone(self))
        return 1;
    fj_team_t *team = self->team;
    uint64_t seq = ++self->reductions;
    int holder = 0;

    pthread_mutex_lock(&team->red_mutex);
    fj_red_entry_t *e = &team->red[seq % FJ_RED_ENTRIES];
    while (e->seq != 0 && e->seq != seq)
        pthread_cond_wait(&team->red_cond, &team->red_mutex);
    if (e->seq == 0) {
        e->seq = seq;
        e->data = data;
        e->count = 1;
        holder = 1;
    } else {
        combine(e->data, data);
        if (++e->count == team->local_count)
            pthread_cond_broadcast(&team->red_cond);
    }
    if (holder) {
        /* our copies hold the node's partial result once all arrived */
        while (e->count < team->local_count)
            pthread_cond_wait(&team->red_cond, &team->red_mutex);
        e->seq = 0;
        pthread_cond_broadcast(&team->red_cond);
    }
    pthread_mutex_unlock(&team->red_mutex);
    if (!holder)
        return 0;

    if (team->nodes > 1) {
        fj_named_lock(key, "reduction");
        self->red_locked = 1;
    }
    return 1;
}

void fj_reduce_end(const void *key)
{
    fj_thread_t *self = fj_self();
    if (!self->red_locked)
        return;
    self->red_locked = 0;
    fj_named_unlock(key, "reduction");
}
