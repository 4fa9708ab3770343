/*
 * shim_task_abi.h - the task part of the libomp ABI as clang 14 emits it:
 * the head of a task (kmp_task_t with its two compiler data words), the
 * flags of __kmpc_omp_task_alloc, dependences (kmp_depend_info), the bounds
 * a taskloop's task carries, and the inputs of task reductions.
 *
 * Layer: compiler-shim (internal header).  Facts checked against clang
 * 14's IR (offsets) and LLVM 14's kmp.h (flag bits); the names follow
 * libomp's so that its documentation applies.
 */
#ifndef SHIM_TASK_ABI_H
#define SHIM_TASK_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "shim_kmp.h"

/* kmp_cmplrdata_t: a priority, or the destructors' thunk (C++). */
typedef union kmp_cmplrdata {
    kmp_int32 priority;
    kmp_routine_entry_t destructors;
} kmp_cmplrdata_t;

/* The head of every task; private variables follow it. */
typedef struct kmp_task_head {
    void *shareds;
    kmp_routine_entry_t routine;
    kmp_int32 part_id;
    kmp_cmplrdata_t data1;       /* destructors */
    kmp_cmplrdata_t data2;       /* priority */
} kmp_task_head_t;

/* A taskloop's task: the loop bounds (normalised iteration numbers,
 * inclusive), the stride, whether it runs the last iteration
 * (lastprivate), and the task reduction's taskgroup. */
typedef struct kmp_taskloop_task {
    kmp_task_head_t head;
    kmp_uint64 lb;
    kmp_uint64 ub;
    kmp_int64 st;
    kmp_int32 liter;
    void *reductions;
} kmp_taskloop_task_t;

_Static_assert(sizeof(kmp_task_head_t) == 40, "kmp_task_t head");
_Static_assert(offsetof(kmp_taskloop_task_t, lb) == 40, "taskloop lb");
_Static_assert(offsetof(kmp_taskloop_task_t, liter) == 64, "taskloop liter");

/* Flags of __kmpc_omp_task_alloc (kmp_tasking_flags_t, compiler bits). */
enum {
    KMP_TASK_TIED = 0x01,
    KMP_TASK_FINAL = 0x02,
    KMP_TASK_MERGED_IF0 = 0x04,
    KMP_TASK_DESTRUCTORS = 0x08,
    KMP_TASK_PROXY = 0x10,
    KMP_TASK_PRIORITY = 0x20,
    KMP_TASK_DETACHABLE = 0x40,
    KMP_TASK_HIDDEN_HELPER = 0x80,
};

/* One dependence: depend(in: a) is {&a, sizeof a, KMP_DEP_IN}. */
typedef struct kmp_depend_info {
    intptr_t base_addr;
    size_t len;
    uint8_t flags;
} kmp_depend_info_t;

enum {
    KMP_DEP_IN = 0x01,
    KMP_DEP_OUT = 0x02,          /* out and inout: both bits */
    KMP_DEP_MTX = 0x04,          /* mutexinoutset */
    KMP_DEP_SET = 0x08,          /* inoutset (OpenMP 5.1) */
    KMP_DEP_ALL = 0x80,          /* omp_all_memory (OpenMP 5.1) */
};

/* __kmpc_taskred_init and __kmpc_taskred_modifier_init (clang 14). */
typedef struct kmp_taskred_input {
    void *reduce_shar;
    void *reduce_orig;
    size_t reduce_size;
    void *reduce_init;           /* void init(void *priv, void *orig) */
    void *reduce_fini;           /* void fini(void *priv), or NULL */
    void *reduce_comb;           /* void comb(void *lhs, void *rhs) */
    kmp_int32 flags;             /* bit 0: lazy private copies */
} kmp_taskred_input_t;

/* __kmpc_task_reduction_init and _modifier_init (before OpenMP 5.0's
 * orig): init takes the private copy only. */
typedef struct kmp_task_red_input {
    void *reduce_shar;
    size_t reduce_size;
    void *reduce_init;
    void *reduce_fini;
    void *reduce_comb;
    kmp_int32 flags;
} kmp_task_red_input_t;

#endif
