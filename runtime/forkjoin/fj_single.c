/*
 * fj_single.c - single and copyprivate.
 *
 * single: instances are numbered the same on every node, and instance s
 * belongs to node s mod (nodes with members): the first of that node's
 * members to meet it wins, by a compare-and-swap on the node's own word;
 * every other member loses at once.  The specification asks for one
 * thread of the team, not the first to arrive, and this one is found with
 * no message: a remote compare-and-swap on node 0's counter took a round
 * trip, 15-20 us of EPCC's SINGLE over TCP.  Rotating the node spreads
 * "single nowait" work over the nodes.
 *
 * copyprivate: the single thread publishes its list of pointers in the
 * team's words (node 0's CONTROL words for the cluster's team); after a
 * team barrier the others copy through it (the pointed-to variables are
 * on its sharable stack, valid on every node); a second barrier keeps them
 * alive until everyone has copied.  Threadprivate variables in its
 * thread-local storage are not valid elsewhere: when the team spans nodes
 * the list names their sharable snapshots instead (fj_tls.c).
 *
 * Layer: forkjoin.  Entry points: fj_single_begin, fj_copyprivate.
 * Members of a region; a lone thread always executes
 * the single construct and copies nothing.
 */
#include <stdint.h>

#include "base_log.h"
#include "fj_internal.h"
#include "fj_words.h"

int fj_single_begin(void)
{
    fj_thread_t *self = fj_self();
    if (fj_alone(self))
        return 1;
    fj_team_t *team = self->team;
    uint64_t s = team->single_base + ++self->singles;
    if (team->nodes > 1 && (int)(s % (uint64_t)team->nodes) != fj.rank)
        return 0;
    /* the node's first member wins, with no mutex (a contended one puts
     * the loser to sleep) */
    uint64_t d = __atomic_load_n(&team->single_decided, __ATOMIC_ACQUIRE);
    while (d < s)
        if (__atomic_compare_exchange_n(&team->single_decided, &d, s, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return 1;
    return 0;
}

void fj_copyprivate(void *data, size_t list_bytes,
                    void (*copy)(void *dst, void *src), int didit)
{
    fj_thread_t *self = fj_self();
    if (fj_alone(self))
        return;
    fj_team_t *team = self->team;
    if (didit) {
        void *list = team->nodes > 1 ? fj_tls_list(self, data, list_bytes)
                                     : data;
        fj_word_put(FJ_WORD(copyprivate), (uint64_t)(uintptr_t)list);
    }
    fj_team_barrier(self);
    if (!didit)
        copy(data, (void *)(uintptr_t)fj_word_load(FJ_WORD(copyprivate)));
    fj_team_barrier(self);
}
