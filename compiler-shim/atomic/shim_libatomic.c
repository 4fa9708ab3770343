/*
 * shim_libatomic.c - twins of libatomic's entry points.  Clang calls
 * libatomic for the atomics it does not inline (long double and complex
 * `omp atomic`, __int128 without -mcx16, objects of odd size or
 * misaligned); the dsm-atomic pass renames those calls to these, and sends
 * here the 16-byte and under-aligned atomic instructions too.
 *
 * Layer: compiler-shim.  Entry points: __dsm_libatomic_X for X in load,
 * store, exchange, compare_exchange (generic, any size) and load_N,
 * store_N, exchange_N, compare_exchange_N, fetch_{add,sub,and,or,xor,nand}_N
 * (N in 1, 2, 4, 8, 16), each with libatomic's signature for __atomic_X.
 * Application threads.
 *
 * Not sharable: libatomic itself, with the caller's memory order.
 * Sharable: naturally aligned words through dsm_coh_atomic, the rest on
 * the locked path (shim_atomic_locked.c); both sequentially consistent.
 * libdsmomp therefore links libatomic.
 */
#include "shim_atomic.h"

typedef unsigned __int128 u128;

/* ---- libatomic, under names that do not collide with clang's builtins --- */

void libatomic_load(size_t size, void *src, void *dest, int order)
    __asm__("__atomic_load");
void libatomic_store(size_t size, void *dest, void *src, int order)
    __asm__("__atomic_store");
void libatomic_exchange(size_t size, void *obj, void *val, void *old,
                        int order) __asm__("__atomic_exchange");
bool libatomic_compare_exchange(size_t size, void *obj, void *expected,
                                void *desired, int success, int failure)
    __asm__("__atomic_compare_exchange");

#define LIBATOMIC_SIZED(N, T)                                                 \
    T libatomic_load_##N(void *obj, int order) __asm__("__atomic_load_" #N);  \
    void libatomic_store_##N(void *obj, T val, int order)                     \
        __asm__("__atomic_store_" #N);                                        \
    T libatomic_exchange_##N(void *obj, T val, int order)                     \
        __asm__("__atomic_exchange_" #N);                                     \
    bool libatomic_compare_exchange_##N(void *obj, void *expected, T desired, \
                                        int success, int failure)             \
        __asm__("__atomic_compare_exchange_" #N);                             \
    T libatomic_fetch_add_##N(void *obj, T val, int order)                    \
        __asm__("__atomic_fetch_add_" #N);                                    \
    T libatomic_fetch_sub_##N(void *obj, T val, int order)                    \
        __asm__("__atomic_fetch_sub_" #N);                                    \
    T libatomic_fetch_and_##N(void *obj, T val, int order)                    \
        __asm__("__atomic_fetch_and_" #N);                                    \
    T libatomic_fetch_or_##N(void *obj, T val, int order)                     \
        __asm__("__atomic_fetch_or_" #N);                                     \
    T libatomic_fetch_xor_##N(void *obj, T val, int order)                    \
        __asm__("__atomic_fetch_xor_" #N);                                    \
    T libatomic_fetch_nand_##N(void *obj, T val, int order)                   \
        __asm__("__atomic_fetch_nand_" #N);
LIBATOMIC_SIZED(1, uint8_t)
LIBATOMIC_SIZED(2, uint16_t)
LIBATOMIC_SIZED(4, uint32_t)
LIBATOMIC_SIZED(8, uint64_t)
LIBATOMIC_SIZED(16, u128)

/* ---- sharable objects, as bytes ------------------------------------------
 * Words in one dsm_coh_atomic, the rest on the locked path; the orders'
 * releases and acquires as for the word entries (shim_atomic_order.c). */

static void sharable_load(void *obj, size_t size, void *out, int order)
{
    if (shim_atomic_is_word(obj, size))
        shim_atomic_bytes_put(out, size,
                              shim_atomic_coh(obj, size, DSM_ATOMIC_LOAD, 0, 0));
    else
        shim_atomic_locked_read(obj, size, out);
    shim_atomic_after_load_bytes(obj, out, size, order);
}

static void sharable_store(void *obj, size_t size, const void *in)
{
    shim_atomic_before_store();
    if (shim_atomic_is_word(obj, size))
        shim_atomic_coh(obj, size, DSM_ATOMIC_STORE,
                        shim_atomic_bytes_get(in, size), 0);
    else
        shim_atomic_locked_write(obj, size, in);
}

/* in and out may be the same buffer. */
static void sharable_exchange(void *obj, size_t size, const void *in,
                              void *out, int order)
{
    shim_atomic_before_rmw(order);
    if (shim_atomic_is_word(obj, size))
        shim_atomic_bytes_put(out, size,
                              shim_atomic_coh(obj, size, DSM_ATOMIC_XCHG,
                                              shim_atomic_bytes_get(in, size),
                                              0));
    else
        shim_atomic_locked_exchange(obj, size, in, out);
    shim_atomic_after_rmw(order);
}

/* libatomic's contract: on failure *expected receives the current value. */
static bool compare_exchange_once(void *obj, size_t size, void *expected,
                                  const void *desired)
{
    if (!shim_atomic_is_word(obj, size))
        return shim_atomic_locked_compare_exchange(obj, size, expected,
                                                   desired);
    uint64_t want = shim_atomic_bytes_get(expected, size);
    uint64_t old = shim_atomic_coh(obj, size, DSM_ATOMIC_CAS,
                                   shim_atomic_bytes_get(desired, size), want);
    if (old == want)
        return true;
    shim_atomic_bytes_put(expected, size, old);
    return false;
}

static bool sharable_compare_exchange(void *obj, size_t size, void *expected,
                                      const void *desired, int success,
                                      int failure)
{
    shim_atomic_before_rmw(success);
    bool done = compare_exchange_once(obj, size, expected, desired);
    shim_atomic_after_rmw(done ? success : failure);
    return done;
}

/* fetch_OP for sizes 1, 2, 4, 8 and 16: *old receives the previous value. */
static void sharable_fetch(void *obj, size_t size, int op, const void *operand,
                           void *old, int order)
{
    shim_atomic_before_rmw(order);
    if (shim_atomic_is_word(obj, size))
        shim_atomic_bytes_put(old, size,
                              shim_atomic_coh(obj, size, shim_atomic_coh_op(op),
                                              shim_atomic_bytes_get(operand,
                                                                    size),
                                              0));
    else
        shim_atomic_locked_fetch(obj, size, op, operand, old);
    shim_atomic_after_rmw(order);
}

/* ---- generic entries ------------------------------------------------------ */

SHIM_ATOMIC_EXPORT void __dsm_libatomic_load(size_t size, void *src,
                                             void *dest, int order);
SHIM_ATOMIC_EXPORT void __dsm_libatomic_store(size_t size, void *dest,
                                              void *src, int order);
SHIM_ATOMIC_EXPORT void __dsm_libatomic_exchange(size_t size, void *obj,
                                                 void *val, void *old,
                                                 int order);
SHIM_ATOMIC_EXPORT bool __dsm_libatomic_compare_exchange(
    size_t size, void *obj, void *expected, void *desired, int success,
    int failure);

void __dsm_libatomic_load(size_t size, void *src, void *dest, int order)
{
    if (shim_atomic_native(src))
        libatomic_load(size, src, dest, order);
    else
        sharable_load(src, size, dest, order);
}

void __dsm_libatomic_store(size_t size, void *dest, void *src, int order)
{
    if (shim_atomic_native(dest))
        libatomic_store(size, dest, src, order);
    else
        sharable_store(dest, size, src);
}

void __dsm_libatomic_exchange(size_t size, void *obj, void *val, void *old,
                              int order)
{
    if (shim_atomic_native(obj))
        libatomic_exchange(size, obj, val, old, order);
    else
        sharable_exchange(obj, size, val, old, order);
}

bool __dsm_libatomic_compare_exchange(size_t size, void *obj, void *expected,
                                      void *desired, int success, int failure)
{
    if (shim_atomic_native(obj))
        return libatomic_compare_exchange(size, obj, expected, desired,
                                          success, failure);
    return sharable_compare_exchange(obj, size, expected, desired, success,
                                     failure);
}

/* ---- sized entries --------------------------------------------------------- */

#define TWIN_FETCH(N, T, NAME, OP)                                            \
    SHIM_ATOMIC_EXPORT T __dsm_libatomic_##NAME##_##N(void *obj, T val,       \
                                                      int order);             \
    T __dsm_libatomic_##NAME##_##N(void *obj, T val, int order)               \
    {                                                                         \
        if (shim_atomic_native(obj))                                          \
            return libatomic_##NAME##_##N(obj, val, order);                   \
        T old;                                                                \
        sharable_fetch(obj, N, OP, &val, &old, order);                        \
        return old;                                                           \
    }

#define TWIN_SIZED(N, T)                                                      \
    SHIM_ATOMIC_EXPORT T __dsm_libatomic_load_##N(void *obj, int order);      \
    SHIM_ATOMIC_EXPORT void __dsm_libatomic_store_##N(void *obj, T val,       \
                                                      int order);             \
    SHIM_ATOMIC_EXPORT T __dsm_libatomic_exchange_##N(void *obj, T val,       \
                                                      int order);             \
    SHIM_ATOMIC_EXPORT bool __dsm_libatomic_compare_exchange_##N(             \
        void *obj, void *expected, T desired, int success, int failure);      \
    T __dsm_libatomic_load_##N(void *obj, int order)                          \
    {                                                                         \
        if (shim_atomic_native(obj))                                          \
            return libatomic_load_##N(obj, order);                            \
        T val;                                                                \
        sharable_load(obj, N, &val, order);                                   \
        return val;                                                           \
    }                                                                         \
    void __dsm_libatomic_store_##N(void *obj, T val, int order)               \
    {                                                                         \
        if (shim_atomic_native(obj))                                          \
            libatomic_store_##N(obj, val, order);                             \
        else                                                                  \
            sharable_store(obj, N, &val);                                     \
    }                                                                         \
    T __dsm_libatomic_exchange_##N(void *obj, T val, int order)               \
    {                                                                         \
        if (shim_atomic_native(obj))                                          \
            return libatomic_exchange_##N(obj, val, order);                   \
        T old;                                                                \
        sharable_exchange(obj, N, &val, &old, order);                         \
        return old;                                                           \
    }                                                                         \
    bool __dsm_libatomic_compare_exchange_##N(void *obj, void *expected,      \
                                              T desired, int success,         \
                                              int failure)                    \
    {                                                                         \
        if (shim_atomic_native(obj))                                          \
            return libatomic_compare_exchange_##N(obj, expected, desired,     \
                                                  success, failure);          \
        return sharable_compare_exchange(obj, N, expected, &desired, success, \
                                         failure);                            \
    }                                                                         \
    TWIN_FETCH(N, T, fetch_add, DSM_RMW_ADD)                                  \
    TWIN_FETCH(N, T, fetch_sub, DSM_RMW_SUB)                                  \
    TWIN_FETCH(N, T, fetch_and, DSM_RMW_AND)                                  \
    TWIN_FETCH(N, T, fetch_or, DSM_RMW_OR)                                    \
    TWIN_FETCH(N, T, fetch_xor, DSM_RMW_XOR)                                  \
    TWIN_FETCH(N, T, fetch_nand, DSM_RMW_NAND)
TWIN_SIZED(1, uint8_t)
TWIN_SIZED(2, uint16_t)
TWIN_SIZED(4, uint32_t)
TWIN_SIZED(8, uint64_t)
TWIN_SIZED(16, u128)
