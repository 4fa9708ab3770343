/*
 * node_tp_failure.c - a node dies, or never joins, and the others end the
 * job naming it.
 *
 * Layer: tests (links the transport).  Usage under dsmrun:
 *   node_tp_failure kill VICTIM    after wire-up and a barrier, node VICTIM
 *                                  kills itself with SIGKILL; the others
 *                                  wait for a flag nobody sets, so only
 *                                  peer-failure detection can end them
 *                                  (DSM_TIMEOUT is far above the run time)
 *   node_tp_failure absent VICTIM  node VICTIM exits 0 without joining; the
 *                                  wire-up must time out naming it
 * The survivors block SIGTERM, which dsmrun sends when it sees the victim
 * die, so that the transport's own message is what ends them.  meson runs
 * it through check_output.sh, which looks for the messages.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base_config.h"
#include "tp_test_util.h"

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int absent = !strcmp(argv[1], "absent");
    int victim = atoi(argv[2]);
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, NULL);

    tt_node_t node;
    tt_prepare();
    if (absent && dsm_config()->rank == victim)
        return 0;
    tt_start(&node, 4096);
    tt_barrier();
    if (node.rank == victim)
        raise(SIGKILL);
    static volatile int never;
    dsm_tp_wait_flag(&never, "a flag nobody sets");
    fprintf(stderr, "node_tp_failure: the wait ended\n");
    return 1;
}
