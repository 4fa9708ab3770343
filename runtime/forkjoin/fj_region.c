/*
 * fj_region.c - parallel regions: node 0's fork (the FORK message to every
 * node, carrying node 0's write notices since the last barrier, which make
 * its serial writes visible: a one-way release/acquire, no barrier), the
 * members on every node, the join barrier; serialised regions, and the
 * worker loop of the other nodes.
 *
 * Why no barrier at the fork: between a join and the next fork only node
 * 0 runs, so its own intervals are all the others lack.  The join is one
 * way (dsm_coh_join) when every node has members: each other node sends
 * its arrival (its write notices) and goes back to wait for the next FORK
 * at once; node 0 waits for all and applies them, so it sees every
 * member's writes; their departure (what each node lacks of the others'
 * writes, and the home moves) leaves with the next FORK.  A fork-join
 * pair is then two messages: FORK out, arrival back.  One FORK is pending
 * at most: node 0 forks only after every arrival of the join is in, and
 * a node arrives only after taking the FORK (fj_mailbox.c).
 *
 * Which team a region gets (fj_fork): none (serialised) when it asks for
 * one thread, or when the encountering thread is already inside as many
 * active regions as its max-active-levels ICV allows; else node 0's master
 * outside any team starts a team across the cluster (also from inside
 * serialised regions: the team's level then counts them), and a member of
 * a team starts a team inside its own node (fj_nested.c).
 *
 * copyin of threadprivate variables in thread-local storage: clang passes
 * the master's address of the variable, meaningless on other nodes, so
 * the FORK they receive names a sharable snapshot of it instead
 * (fj_tls.c); node 0's members keep the master's address.
 *
 * Layer: forkjoin.  fj_fork and fj_serialized_*: any application thread.
 * fj_worker_loop: the main thread of nodes other than 0.  fj_member_run:
 * each member of a region on its node.
 *
 * A node whose share of a small team is empty (fewer threads than nodes)
 * still takes part in every dsm_barrier of the region as a proxy: before
 * the join barrier node 0 writes into the proxy's CONTROL copy how many
 * barriers the region had, and the proxy stops after that many.
 */
#include <alloca.h>
#include <string.h>

#include "base_log.h"
#include "coherence.h"
#include "fj_internal.h"
#include "fj_mailbox.h"
#include "fj_task.h"
#include "fj_words.h"
#include "sys_region.h"
#include "transport.h"

/* On x86-64 and AArch64 the caller owns the stack argument area, so a
 * microtask that takes fewer arguments ignores the extra ones: one call
 * with every slot avoids a switch on the number of arguments. */
void fj_call_microtask(fj_microtask_t fn, int32_t *gtid, int32_t *btid,
                       void *const *a)
{
    fn(gtid, btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
       a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[18],
       a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28],
       a[29], a[30], a[31]);
}

_Static_assert(FJ_MAX_ARGS == 32, "fj_call_microtask passes 32 arguments");

static void run_serialized(fj_thread_t *self, fj_microtask_t fn, int argc,
                           void *const *args)
{
    void *slots[FJ_MAX_ARGS] = {0};
    memcpy(slots, args, (size_t)argc * sizeof *slots);
    int32_t gtid = self->gtid, btid = 0;
    self->serial++;
    fj_call_microtask(fn, &gtid, &btid, slots);
    fj_task_alone_drain();          /* the inner region's tasks */
    self->serial--;
}

void fj_serialized_begin(void) { fj_self()->serial++; }

void fj_serialized_end(void)
{
    fj_thread_t *self = fj_self();
    if (self->serial > 0) {
        fj_task_alone_drain();      /* the inner region's tasks */
        self->serial--;
    }
}

void fj_push_num_threads(int nthreads)
{
    fj_self()->pushed = nthreads > 0 ? nthreads : 0;
}

void fj_team_setup(const fj_fork_msg_t *msg)
{
    fj_team_t *team = &fj.team;
    fj_task_region_close();
    team->region = msg->region;
    team->microtask = (fj_microtask_t)(uintptr_t)msg->microtask;
    for (int i = 0; i < msg->argc; i++)
        team->args[i] = (void *)(uintptr_t)msg->args[i];
    /* call_microtask passes every slot: the unused ones stay NULL (the
     * last region's argc says how far they were set) */
    for (int i = msg->argc; i < team->argc; i++)
        team->args[i] = NULL;
    team->argc = msg->argc;
    team->nthreads = msg->nthreads;
    team->nodes = msg->nthreads < fj.size ? msg->nthreads : fj.size;
    team->first = fj_layout_first(msg->nthreads, fj.size, fj.rank);
    team->local_count = fj_layout_count(msg->nthreads, fj.size, fj.rank);
    team->loop_base = msg->loop_base;
    team->single_base = msg->single_base;
    team->single_decided = msg->single_base;
    team->icv.nthreads = msg->icv_nthreads;
    team->icv.dynamic = msg->icv_dynamic;
    team->icv.sched = (fj_sched_t){msg->sched_kind, msg->sched_chunk};
    team->icv.max_active_levels = msg->icv_max_active_levels;
    team->level = msg->level;
    team->active_level = 1;
    team->team_num = msg->team_num;
    team->num_teams = msg->num_teams;
    team->parent = NULL;
    team->parent_level = msg->level - 1;   /* serialised levels below */
    team->parent_num = 0;
    atomic_store(&team->bar.arrived, 0);
    fj_cancel_team_setup(team);
    fj_task_region_open(team);
}

void fj_member_run(fj_thread_t *self, fj_team_t *team, int num)
{
    self->team = team;
    self->num = num;
    self->serial = 0;
    self->loops = self->loops_safe = 0;
    self->singles = self->reductions = self->barriers = 0;
    self->reductions_safe = self->doacross = 0;
    self->icv = team->icv;
    int32_t gtid = self->gtid, btid = self->num;
    if (!team->parent)      /* the sharing report's thread numbers */
        dsm_coh_sharing_thread(num);
    fj_task_member_begin(self);
    fj_call_microtask(team->microtask, &gtid, &btid, team->args);
    fj_cancel_member_end(self);     /* a cancelled region's end: fj_cancel.h */
    fj_task_member_end(self);       /* the region's tasks: fj_task.h */
    self->team = NULL;
}

void fj_region_save(const fj_thread_t *self, fj_saved_region_t *saved)
{
    *saved = (fj_saved_region_t){
        .team = self->team, .num = self->num, .serial = self->serial,
        .loops = self->loops, .loops_safe = self->loops_safe,
        .singles = self->singles, .reductions = self->reductions,
        .barriers = self->barriers, .doacross = self->doacross,
        .reductions_safe = self->reductions_safe, .icv = self->icv,
    };
}

void fj_region_restore(fj_thread_t *self, const fj_saved_region_t *saved)
{
    self->team = saved->team;
    self->num = saved->num;
    self->serial = saved->serial;
    self->loops = saved->loops;
    self->loops_safe = saved->loops_safe;
    self->singles = saved->singles;
    self->reductions = saved->reductions;
    self->barriers = saved->barriers;
    self->doacross = saved->doacross;
    self->reductions_safe = saved->reductions_safe;
    self->icv = saved->icv;
}

/* A node without members: meet the region's barriers until node 0 says
 * the last one was the join.  Node 0 writes the number of the join
 * barrier before it enters it, so after barrier `count` the word may
 * already name a later barrier of this region (node 0 went on computing):
 * only the number of the barrier just met means the join.  Node 0 may
 * also have written the word of a later region (the fork has no barrier):
 * that, too, means the join is done, because node 0 forks only after it.
 * A word of an earlier region means nothing yet. */
static void proxy_region(const fj_team_t *team)
{
    uint32_t region = (uint32_t)team->region;
    for (uint32_t count = 1;; count++) {
        fj_global_barrier();
        uint64_t word = __atomic_load_n(&fj.control->join_word,
                                        __ATOMIC_ACQUIRE);
        int32_t ahead = (int32_t)((uint32_t)(word >> 32) - region);
        if (ahead > 0 || (ahead == 0 && (uint32_t)word == count))
            return;
    }
}

void fj_leader_region(fj_thread_t *self)
{
    fj_team_t *team = &fj.team;
    if (team->local_count == 0) {
        proxy_region(team);
        return;
    }
    fj_pool_wake();
    fj_member_run(self, team, team->first);
    fj_pool_wait_done(team->local_count);
    /* every node at the same cluster barrier, cancelled or not */
    uint64_t barriers = fj_cancel_region_end(self);
    if (team->nodes == fj.size && fj.size > 1) {
        /* node 0's serial code after this region labels its next epoch */
        dsm_coh_epoch_next((uintptr_t)team->microtask | 1);
        fj_global_join();             /* one way: see the file header */
    } else if (team->nodes > 1) {
        if (fj.rank == 0) {
            uint64_t word = ((team->region & 0xffffffffu) << 32) |
                            (barriers + 1);
            for (int node = team->nthreads; node < fj.size; node++)
                fj_word_swap_at(node, FJ_WORD(join_word), word);
        }
        fj_global_barrier();          /* the join, proxies included */
    }
}

void fj_fork(const char *where, fj_microtask_t microtask, int argc,
             void *const *args)
{
    fj_thread_t *self = fj_self();
    if (argc < 0 || argc > FJ_MAX_ARGS)
        dsm_fatal("the parallel region at %s passes %d variables; dsmomp "
                  "supports at most %d", where, argc, FJ_MAX_ARGS);
    int n = self->pushed ? self->pushed : self->icv.nthreads;
    self->pushed = 0;
    int limit = fj_icv_thread_limit();
    if (n > limit)
        n = limit;
    if (!fj.started || n < 2 || self->local < 0 ||
        fj_active_level_of(self) >= self->icv.max_active_levels) {
        run_serialized(self, microtask, argc, args);
        return;
    }
    if (self->team) {
        if (!fj_nested_fork(self, microtask, argc, args, n))
            run_serialized(self, microtask, argc, args);
        return;
    }
    if (fj.rank != 0 || self != fj.thread[0]) {
        run_serialized(self, microtask, argc, args);
        return;
    }

    fj_fork_msg_t msg;
    /* the arguments past argc are neither sent nor read */
    memset(&msg, 0, offsetof(fj_fork_msg_t, args));
    msg.region = ++fj.region;
    msg.microtask = (uint64_t)(uintptr_t)microtask;
    msg.loop_base = fj.loop_base;
    msg.single_base = fj.single_base;
    msg.nthreads = n;
    msg.argc = argc;
    msg.icv_nthreads = self->icv.nthreads;
    msg.icv_dynamic = self->icv.dynamic;
    msg.sched_kind = self->icv.sched.kind;
    msg.sched_chunk = self->icv.sched.chunk;
    msg.icv_max_active_levels = self->icv.max_active_levels;
    msg.team_num = self->in_teams ? self->team_num : 0;
    msg.num_teams = self->in_teams ? self->num_teams : 1;
    msg.level = self->serial + 1;
    for (int i = 0; i < argc; i++)
        msg.args[i] = (uint64_t)(uintptr_t)args[i];
    /* copyin's sources in the master's thread-local storage: the other
     * nodes get a sharable snapshot (written before the release below) */
    int snapshots = fj.size > 1 ? fj_tls_fork_args(self, msg.args, argc,
                                                   where) : 0;
    size_t len = offsetof(fj_fork_msg_t, args) +
                 (size_t)argc * sizeof(uint64_t);
    /* node 0's serial writes: released here, acquired by each node from
     * the message (written once, by the only thread that forks) */
    static _Alignas(8) char handoff[FJ_HANDOFF_BYTES];
    size_t handoff_len = 0;
    if (fj.size > 1) {
        dsm_coh_epoch_next((uintptr_t)microtask);
        dsm_status_t st = dsm_coh_handoff_export(handoff, sizeof handoff,
                                                 &handoff_len);
        if (st != DSM_OK)
            dsm_fatal("releasing node 0's writes for the parallel region at "
                      "%s: %s", where, dsm_status_string(st));
    }
    msg.handoff_bytes = (uint32_t)handoff_len;
    /* the transport is handed private memory, not the master's (maybe
     * sharable) stack: design.md, "Locks and their order" */
    static __thread fj_fork_msg_t fork_out;
    if (fj.size > 1)
        memcpy(&fork_out, &msg, len);
    for (int node = 1; node < fj.size; node++) {
        dsm_status_t st = dsm_tp_am_sendv(node, FJ_AM_FORK, &fork_out, len,
                                          handoff, handoff_len);
        if (st != DSM_OK)
            dsm_fatal("starting the parallel region at %s on node %d: %s",
                      where, node, dsm_status_string(st));
    }
    /* node 0's members use the master's own addresses */
    for (int i = 0; snapshots && i < argc; i++)
        msg.args[i] = (uint64_t)(uintptr_t)args[i];

    /* The master's frames of the region start on the next stack page down:
     * the caller's locals that the team reads then stay on pages that the
     * master's own calls do not write (every such write would cost a fault
     * and a write notice). */
    char *gap = alloca(((uintptr_t)__builtin_frame_address(0) &
                        (DSM_PAGE_SIZE - 1)) + 64);
    __asm__ __volatile__("" : : "r"(gap) : "memory");

    fj_icv_t serial_icv = self->icv;
    int serial = self->serial;
    fj_team_setup(&msg);
    fj_leader_region(self);
    self->icv = serial_icv;
    self->serial = serial;
    /* every member met the same constructs as the master, unless the
     * region was cancelled */
    if (!fj_cancel_after_region(self)) {
        fj.loop_base += self->loops;
        fj.single_base += self->singles;
    }
}

void fj_worker_loop(void *unused)
{
    fj_thread_t *self = fj.thread[0];
    const fj_fork_msg_t *msg;
    int status;
    for (;;) {
        if (fj_mailbox_wait(&msg, &status))
            fj_exit_node();   /* the job's status is node 0's */
        fj_team_setup(msg);
        fj_leader_region(self);
    }
}
