/*
 * fj_single.c - single and copyprivate.
 *
 * single: instances are numbered the same on every node; the first member
 * of a node to meet instance s asks node 0's counter with one remote
 * compare-and-swap (s-1 -> s): it wins the construct for the team, or the
 * construct is already taken.  The node's other members learn the outcome
 * locally (they lose either way).  In a one-node job that first member
 * simply wins, by a compare-and-swap on the node's own word.
 *
 * copyprivate: the single thread publishes its list of pointers in node
 * 0's CONTROL words; after a team barrier the others copy through it (the
 * pointed-to variables are on its sharable stack, valid on every node);
 * a second barrier keeps them alive until everyone has copied.
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
    if (fj.size == 1) {
        /* one node: its first member wins, with no team-wide word and no
         * mutex (a contended one puts the loser to sleep) */
        uint64_t d = __atomic_load_n(&team->single_decided, __ATOMIC_ACQUIRE);
        while (d < s)
            if (__atomic_compare_exchange_n(&team->single_decided, &d, s, 0,
                                            __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return 1;
        return 0;
    }
    int won = 0;
    pthread_mutex_lock(&team->single_mutex);
    if (team->single_decided < s) {
        uint64_t old = fj_word_cswap(FJ_WORD(single_last), s - 1, s);
        if (old < s - 1)
            dsm_fatal("single construct %llu claimed before %llu: the team "
                      "met single constructs in different orders",
                      (unsigned long long)s, (unsigned long long)old);
        won = old == s - 1;
        team->single_decided = s;
    }
    pthread_mutex_unlock(&team->single_mutex);
    return won;
}

void fj_copyprivate(void *data, size_t list_bytes,
                    void (*copy)(void *dst, void *src), int didit)
{
    fj_thread_t *self = fj_self();
    if (fj_alone(self))
        return;
    fj_team_t *team = self->team;
    if (didit) {
        if (team->nodes > 1) {
            void *const *list = data;
            for (size_t i = 0; i < list_bytes / sizeof(void *); i++)
                if (!dsm_is_sharable(list[i]))
                    dsm_fatal("copyprivate of a variable at %p that other "
                              "nodes cannot reach (a threadprivate variable "
                              "in thread-local storage?)", list[i]);
        }
        fj_word_put(FJ_WORD(copyprivate), (uint64_t)(uintptr_t)data);
    }
    fj_team_barrier(self);
    if (!didit)
        copy(data, (void *)(uintptr_t)fj_word_load(FJ_WORD(copyprivate)));
    fj_team_barrier(self);
}
