/*
 * kmp_cluster.h - Intel Cluster OpenMP's process queries, which dsmomp
 * accepts: which node (process) the calling thread runs on, how many
 * there are, and the thread's number within its node.  (The sharable
 * allocators kmp_sharable_malloc and friends are declared in dsm.h.)
 *
 * Public header installed with libdsmomp; dsmcc puts it on the include
 * path.  Any thread of a program linked by dsmcc.
 */
#ifndef KMP_CLUSTER_H
#define KMP_CLUSTER_H

#include "dsm.h"

#ifdef __cplusplus
extern "C" {
#endif

DSM_API int kmp_get_process_num(void);
DSM_API int kmp_get_num_processes(void);
DSM_API int kmp_get_process_thread_num(void);

#ifdef __cplusplus
}
#endif
#endif
