/*
 * shim_cluster.c - Intel Cluster OpenMP's process queries (kmp_cluster.h).
 *
 * Layer: compiler-shim.  Any application thread.
 */
#include "dsm.h"
#include "forkjoin.h"
#include "kmp_cluster.h"

int kmp_get_process_num(void) { return fj_started() ? dsm_node_id() : 0; }
int kmp_get_num_processes(void) { return fj_started() ? dsm_num_nodes() : 1; }
int kmp_get_process_thread_num(void) { return fj_process_thread_num(); }
