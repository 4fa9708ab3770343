/*
 * node_malformed.c - node 1 sends node 0 a malformed coherence message of
 * the kind named by argv[1] (diff, arrive, share, lock, heap, atomic), then
 * both meet in a barrier.  Node 0's handler must end the job with a message
 * naming the sender; the meson test checks dsmrun's exit status and that
 * message (tests/transport/check_output.sh).  Run with 2 nodes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coh_msg.h"
#include "dsm.h"
#include "transport.h"

int main(int argc, char **argv)
{
    if (argc != 2 || dsm_init() != DSM_OK)
        return 2;
    if (dsm_node_id() == 1) {
        unsigned char msg[64];
        memset(msg, 0xee, sizeof msg);
        unsigned id;
        size_t len;
        if (strcmp(argv[1], "diff") == 0) {
            /* one page whose 5-byte diff is no valid encoding */
            coh_msg_diff_t hdr = {1, 0};
            coh_diff_page_t pg = {0, 5};
            memcpy(msg, &hdr, sizeof hdr);
            memcpy(msg + sizeof hdr, &pg, sizeof pg);
            id = COH_AM_DIFF;
            len = sizeof hdr + sizeof pg + 5;
        } else if (strcmp(argv[1], "arrive") == 0) {
            /* announces 3 records, carries garbage */
            coh_msg_arrive_t hdr = {0, 1, 0, 3, 0, 0, 0};
            memcpy(msg, &hdr, sizeof hdr);
            id = COH_AM_BARRIER_ARRIVE;
            len = sizeof hdr + 20;
        } else if (strcmp(argv[1], "share") == 0) {
            id = COH_AM_SHARE_REQ;             /* truncated */
            len = sizeof(coh_msg_share_t) - 1;
        } else if (strcmp(argv[1], "lock") == 0) {
            /* more vector-time entries than nodes */
            coh_msg_lock_t hdr = {1, 0, 0, 40, 0};
            memcpy(msg, &hdr, sizeof hdr);
            id = COH_AM_LOCK_REQ;
            len = sizeof hdr;
        } else if (strcmp(argv[1], "heap") == 0) {
            id = COH_AM_HEAP_FREE;             /* too long */
            len = sizeof(coh_msg_heap_t) + 8;
        } else if (strcmp(argv[1], "atomic") == 0) {
            /* a 4-byte operand at an odd offset */
            coh_msg_atomic_t a = {4097, 1, 0, 0, 4, 4};
            memcpy(msg, &a, sizeof a);
            id = COH_AM_ATOMIC_REQ;
            len = sizeof a;
        } else {
            fprintf(stderr, "node_malformed: unknown kind %s\n", argv[1]);
            return 2;
        }
        if (dsm_tp_am_send(0, id, msg, len) != DSM_OK)
            return 3;
    }
    dsm_barrier();
    dsm_finalize();
    return 0;   /* not reached on node 0: its handler ends the job */
}
