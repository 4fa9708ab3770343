/*
 * atomic_abi.h - the contract between the dsm-atomic pass plug-in (which
 * writes calls into compiled programs) and the runtime entry points in
 * libdsmomp that those calls reach.  Included by the plug-in (C++) and by
 * the shim (C); it declares nothing else.
 *
 * Layer: compiler-shim.  Entry points (all exported from libdsmomp):
 *
 *   Naturally aligned 1, 2, 4 and 8-byte atomic instructions, N in 1,2,4,8;
 *   values travel zero-extended in a uint64_t, floats and pointers as bits:
 *     uint64_t __dsm_atomic_load_N(void *addr, int order)
 *     void     __dsm_atomic_store_N(void *addr, uint64_t value, int order)
 *     uint64_t __dsm_atomic_rmw_N(void *addr, uint64_t operand, int op,
 *                                 int order)                 op: dsm_rmw_op
 *     uint64_t __dsm_atomic_cmpxchg_N(void *addr, uint64_t expected,
 *                                     uint64_t desired, int success_order,
 *                                     int failure_order)    returns old
 *     uint64_t __dsm_atomic_load_seed_N(void *addr, int order)
 *   load_seed replaces a load whose value only seeds a compare-exchange
 *   loop on addr: it returns a value the word held, perhaps not the latest
 *   (this node's copy), which costs the loop one more turn at worst.
 *
 *   libatomic's ABI, renamed: __dsm_libatomic_X has the signature of
 *   libatomic's __atomic_X, for X in load, store, exchange,
 *   compare_exchange (generic, any size) and load_N, store_N, exchange_N,
 *   compare_exchange_N, fetch_{add,sub,and,or,xor,nand}_N, N in 1,2,4,8,16.
 *   The pass sends there the calls clang makes to libatomic (long double,
 *   complex, __int128, misaligned objects) and the 16-byte or under-aligned
 *   atomic instructions.
 *
 *   Reductions whose variables' sizes the pass can see (see
 *   atomic_reduce.cpp): __kmpc_reduce and __kmpc_reduce_nowait calls become
 *     kmp_int32 __dsm_reduce_sized(ident_t *loc, kmp_int32 gtid,
 *         kmp_int32 num_vars, size_t reduce_size, void *reduce_data,
 *         void (*reduce_func)(void *, void *), kmp_critical_name *lck,
 *         const uint64_t *sizes)
 *   (and __dsm_reduce_nowait_sized): the same arguments, then a constant
 *   array of num_vars sizes in bytes of the variables reduce_data points to.
 *   Their ends stay __kmpc_end_reduce and __kmpc_end_reduce_nowait.
 *
 * Orders are the C ABI's __ATOMIC_* numbers (0 relaxed .. 5 seq_cst).
 * Programs compiled with the plug-in carry these numbers and names: change
 * them only together with a new name.
 */
#ifndef DSM_ATOMIC_ABI_H
#define DSM_ATOMIC_ABI_H

/* Read-modify-write operations of __dsm_atomic_rmw_N.  MAX and MIN compare
 * as signed N-byte integers, UMAX and UMIN as unsigned; FADD and FSUB treat
 * the bits as float (N = 4) or double (N = 8). */
enum dsm_rmw_op {
    DSM_RMW_XCHG = 0,
    DSM_RMW_ADD  = 1,
    DSM_RMW_SUB  = 2,
    DSM_RMW_AND  = 3,
    DSM_RMW_NAND = 4,
    DSM_RMW_OR   = 5,
    DSM_RMW_XOR  = 6,
    DSM_RMW_MAX  = 7,
    DSM_RMW_MIN  = 8,
    DSM_RMW_UMAX = 9,
    DSM_RMW_UMIN = 10,
    DSM_RMW_FADD = 11,
    DSM_RMW_FSUB = 12,
};

#define DSM_ATOMIC_PREFIX "__dsm_atomic_"
#define DSM_LIBATOMIC_PREFIX "__dsm_libatomic_"
#define DSM_REDUCE_SIZED "__dsm_reduce_sized"
#define DSM_REDUCE_NOWAIT_SIZED "__dsm_reduce_nowait_sized"

#endif
