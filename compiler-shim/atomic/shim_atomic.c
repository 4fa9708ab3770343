/*
 * shim_atomic.c - the runtime entry points that the dsm-atomic pass puts in
 * place of 1, 2, 4 and 8-byte atomic instructions (`#pragma omp atomic` on
 * int, long, float, double, pointers; C11 atomics; __sync builtins).
 *
 * Layer: compiler-shim.  Entry points (see atomic_abi.h), N in 1,2,4,8:
 *   __dsm_atomic_load_N, __dsm_atomic_load_seed_N, __dsm_atomic_store_N,
 *   __dsm_atomic_rmw_N,
 *   __dsm_atomic_cmpxchg_N; and shim_atomic_coh / shim_atomic_coh_op for
 *   the libatomic twins.  Application threads (and anything else the
 *   program's atomics ran in, as long as the address is not sharable).
 *
 * Not sharable (thread stacks, malloc, TLS, or any address before the
 * runtime starts), and every address in a one-node job: the CPU's atomic
 * with the instruction's memory order.
 * Sharable and aligned: dsm_coh_atomic, sequentially consistent across the
 * cluster.  Sharable but misaligned (a __sync builtin on a packed field):
 * the locked path.
 */
#include "base_log.h"
#include "shim_atomic.h"

/* ---- native path --------------------------------------------------------
 * The order argument is a run-time value; clang turns each builtin into a
 * switch over the orders, so every access keeps the order it was written
 * with. */

static uint64_t native_load(void *addr, size_t size, int order)
{
    switch (size) {
    case 1: return __atomic_load_n((uint8_t *)addr, order);
    case 2: return __atomic_load_n((uint16_t *)addr, order);
    case 4: return __atomic_load_n((uint32_t *)addr, order);
    default: return __atomic_load_n((uint64_t *)addr, order);
    }
}

static void native_store(void *addr, size_t size, uint64_t value, int order)
{
    switch (size) {
    case 1: __atomic_store_n((uint8_t *)addr, (uint8_t)value, order); return;
    case 2: __atomic_store_n((uint16_t *)addr, (uint16_t)value, order); return;
    case 4: __atomic_store_n((uint32_t *)addr, (uint32_t)value, order); return;
    default: __atomic_store_n((uint64_t *)addr, value, order); return;
    }
}

/* Strong compare-exchange; returns the old value. */
static uint64_t native_cmpxchg(void *addr, size_t size, uint64_t expected,
                               uint64_t desired, int success, int failure)
{
    switch (size) {
    case 1: {
        uint8_t e = (uint8_t)expected;
        __atomic_compare_exchange_n((uint8_t *)addr, &e, (uint8_t)desired,
                                    false, success, failure);
        return e;
    }
    case 2: {
        uint16_t e = (uint16_t)expected;
        __atomic_compare_exchange_n((uint16_t *)addr, &e, (uint16_t)desired,
                                    false, success, failure);
        return e;
    }
    case 4: {
        uint32_t e = (uint32_t)expected;
        __atomic_compare_exchange_n((uint32_t *)addr, &e, (uint32_t)desired,
                                    false, success, failure);
        return e;
    }
    default: {
        uint64_t e = expected;
        __atomic_compare_exchange_n((uint64_t *)addr, &e, desired, false,
                                    success, failure);
        return e;
    }
    }
}

/* Operations without a CPU instruction (float add and subtract). */
static uint64_t native_rmw_by_cmpxchg(void *addr, size_t size,
                                      uint64_t operand, int op, int order)
{
    uint64_t old = native_load(addr, size, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t seen = native_cmpxchg(addr, size, old,
                                       shim_atomic_apply(op, size, old, operand),
                                       order, __ATOMIC_RELAXED);
        if (seen == old)
            return old;
        old = seen;
    }
}

/* One function per width: the builtins take the object's type, and MAX and
 * MIN compare as the signed type. */
#define NATIVE_RMW(BITS)                                                      \
    static uint64_t native_rmw_##BITS(void *addr, uint64_t operand, int op,  \
                                      int order)                              \
    {                                                                         \
        uint##BITS##_t *u = addr;                                             \
        int##BITS##_t *s = addr;                                              \
        uint##BITS##_t v = (uint##BITS##_t)operand;                           \
        switch (op) {                                                         \
        case DSM_RMW_XCHG: return __atomic_exchange_n(u, v, order);           \
        case DSM_RMW_ADD:  return __atomic_fetch_add(u, v, order);            \
        case DSM_RMW_SUB:  return __atomic_fetch_sub(u, v, order);            \
        case DSM_RMW_AND:  return __atomic_fetch_and(u, v, order);            \
        case DSM_RMW_NAND: return __atomic_fetch_nand(u, v, order);           \
        case DSM_RMW_OR:   return __atomic_fetch_or(u, v, order);             \
        case DSM_RMW_XOR:  return __atomic_fetch_xor(u, v, order);            \
        case DSM_RMW_MAX:                                                     \
            return (uint##BITS##_t)__atomic_fetch_max(                        \
                s, (int##BITS##_t)v, order);                                  \
        case DSM_RMW_MIN:                                                     \
            return (uint##BITS##_t)__atomic_fetch_min(                        \
                s, (int##BITS##_t)v, order);                                  \
        case DSM_RMW_UMAX: return __atomic_fetch_max(u, v, order);            \
        case DSM_RMW_UMIN: return __atomic_fetch_min(u, v, order);            \
        default:                                                              \
            return native_rmw_by_cmpxchg(addr, BITS / 8, operand, op, order); \
        }                                                                     \
    }
NATIVE_RMW(8)
NATIVE_RMW(16)
NATIVE_RMW(32)
NATIVE_RMW(64)

static uint64_t native_rmw(void *addr, size_t size, uint64_t operand, int op,
                           int order)
{
    switch (size) {
    case 1: return native_rmw_8(addr, operand, op, order);
    case 2: return native_rmw_16(addr, operand, op, order);
    case 4: return native_rmw_32(addr, operand, op, order);
    default: return native_rmw_64(addr, operand, op, order);
    }
}

/* ---- sharable path ------------------------------------------------------ */

dsm_coh_atomic_op_t shim_atomic_coh_op(int op)
{
    switch (op) {
    case DSM_RMW_XCHG: return DSM_ATOMIC_XCHG;
    case DSM_RMW_ADD:  return DSM_ATOMIC_ADD;
    case DSM_RMW_SUB:  return DSM_ATOMIC_SUB;
    case DSM_RMW_AND:  return DSM_ATOMIC_AND;
    case DSM_RMW_NAND: return DSM_ATOMIC_NAND;
    case DSM_RMW_OR:   return DSM_ATOMIC_OR;
    case DSM_RMW_XOR:  return DSM_ATOMIC_XOR;
    case DSM_RMW_MAX:  return DSM_ATOMIC_MAX;
    case DSM_RMW_MIN:  return DSM_ATOMIC_MIN;
    case DSM_RMW_UMAX: return DSM_ATOMIC_UMAX;
    case DSM_RMW_UMIN: return DSM_ATOMIC_UMIN;
    case DSM_RMW_FADD: return DSM_ATOMIC_FADD;
    case DSM_RMW_FSUB: return DSM_ATOMIC_FSUB;
    default: dsm_fatal("unknown atomic operation %d", op);
    }
}

uint64_t shim_atomic_coh(void *addr, size_t size, dsm_coh_atomic_op_t op,
                         uint64_t operand, uint64_t expected)
{
    uint64_t old;
    dsm_status_t st = dsm_coh_atomic(addr, (unsigned)size, op, operand,
                                     expected, &old);
    if (st != DSM_OK)
        dsm_fatal("atomic operation %d on %zu bytes at %p failed: %s",
                  (int)op, size, addr, dsm_status_string(st));
    return old;
}

/* Misaligned sharable words: dsm_coh_atomic needs natural alignment. */
static uint64_t locked_rmw(void *addr, size_t size, uint64_t operand, int op)
{
    unsigned char arg[8], old[8];
    shim_atomic_bytes_put(arg, size, operand);
    shim_atomic_locked_fetch(addr, size, op, arg, old);
    return shim_atomic_bytes_get(old, size);
}

static uint64_t locked_cmpxchg(void *addr, size_t size, uint64_t expected,
                               uint64_t desired)
{
    unsigned char want[8], next[8];
    shim_atomic_bytes_put(want, size, expected);
    shim_atomic_bytes_put(next, size, desired);
    if (shim_atomic_locked_compare_exchange(addr, size, want, next))
        return expected;
    return shim_atomic_bytes_get(want, size);
}

/* ---- the four operations, any width -------------------------------------- */

static uint64_t word_load(void *addr, size_t size, int order)
{
    if (shim_atomic_native(addr))
        return native_load(addr, size, order);
    uint64_t v;
    if (shim_atomic_is_word(addr, size)) {
        v = shim_atomic_coh(addr, size, DSM_ATOMIC_LOAD, 0, 0);
    } else {
        unsigned char value[8];
        shim_atomic_locked_read(addr, size, value);
        v = shim_atomic_bytes_get(value, size);
    }
    shim_atomic_after_load(addr, v, order);
    return v;
}

/* The first expected value of a compare-exchange loop: any value the word
 * held will do (atomic_abi.h), and the loop's compare-exchange carries the
 * operation's order. */
static uint64_t word_load_seed(void *addr, size_t size, int order)
{
    if (shim_atomic_native(addr) || !shim_atomic_is_word(addr, size))
        return word_load(addr, size, __ATOMIC_RELAXED);
    uint64_t value;
    dsm_status_t st = dsm_coh_atomic_seed(addr, (unsigned)size, &value);
    if (st != DSM_OK)
        dsm_fatal("atomic load of %zu bytes at %p failed: %s", size, addr,
                  dsm_status_string(st));
    return value;
}

static void word_store(void *addr, size_t size, uint64_t value, int order)
{
    if (shim_atomic_native(addr)) {
        native_store(addr, size, value, order);
        return;
    }
    shim_atomic_before_store();
    if (shim_atomic_is_word(addr, size)) {
        shim_atomic_coh(addr, size, DSM_ATOMIC_STORE, value, 0);
    } else {
        unsigned char bytes[8];
        shim_atomic_bytes_put(bytes, size, value);
        shim_atomic_locked_write(addr, size, bytes);
    }
}

static uint64_t word_rmw(void *addr, size_t size, uint64_t operand, int op,
                         int order)
{
    if (shim_atomic_native(addr))
        return native_rmw(addr, size, operand, op, order);
    shim_atomic_before_rmw(order);
    uint64_t old = shim_atomic_is_word(addr, size)
                       ? shim_atomic_coh(addr, size, shim_atomic_coh_op(op),
                                         operand, 0)
                       : locked_rmw(addr, size, operand, op);
    shim_atomic_after_rmw(order);
    return old;
}

static uint64_t word_cmpxchg(void *addr, size_t size, uint64_t expected,
                             uint64_t desired, int success, int failure)
{
    if (shim_atomic_native(addr))
        return native_cmpxchg(addr, size, expected, desired, success, failure);
    shim_atomic_before_rmw(success);
    uint64_t old = shim_atomic_is_word(addr, size)
                       ? shim_atomic_coh(addr, size, DSM_ATOMIC_CAS, desired,
                                         expected)
                       : locked_cmpxchg(addr, size, expected, desired);
    shim_atomic_after_rmw(old == expected ? success : failure);
    return old;
}

/* ---- exported entries ----------------------------------------------------- */

#define WORD_ENTRIES(N)                                                       \
    SHIM_ATOMIC_EXPORT uint64_t __dsm_atomic_load_##N(void *addr, int order); \
    SHIM_ATOMIC_EXPORT uint64_t __dsm_atomic_load_seed_##N(void *addr,        \
                                                           int order);        \
    SHIM_ATOMIC_EXPORT void __dsm_atomic_store_##N(void *addr,                \
                                                   uint64_t value, int order);\
    SHIM_ATOMIC_EXPORT uint64_t __dsm_atomic_rmw_##N(                         \
        void *addr, uint64_t operand, int op, int order);                     \
    SHIM_ATOMIC_EXPORT uint64_t __dsm_atomic_cmpxchg_##N(                     \
        void *addr, uint64_t expected, uint64_t desired, int success_order,   \
        int failure_order);                                                   \
    uint64_t __dsm_atomic_load_##N(void *addr, int order)                     \
    {                                                                         \
        return word_load(addr, N, order);                                     \
    }                                                                         \
    uint64_t __dsm_atomic_load_seed_##N(void *addr, int order)                \
    {                                                                         \
        return word_load_seed(addr, N, order);                                \
    }                                                                         \
    void __dsm_atomic_store_##N(void *addr, uint64_t value, int order)        \
    {                                                                         \
        word_store(addr, N, value, order);                                    \
    }                                                                         \
    uint64_t __dsm_atomic_rmw_##N(void *addr, uint64_t operand, int op,       \
                                  int order)                                  \
    {                                                                         \
        return word_rmw(addr, N, operand, op, order);                         \
    }                                                                         \
    uint64_t __dsm_atomic_cmpxchg_##N(void *addr, uint64_t expected,          \
                                      uint64_t desired, int success_order,    \
                                      int failure_order)                      \
    {                                                                         \
        return word_cmpxchg(addr, N, expected, desired, success_order,        \
                            failure_order);                                   \
    }
WORD_ENTRIES(1)
WORD_ENTRIES(2)
WORD_ENTRIES(4)
WORD_ENTRIES(8)
