/*
 * shim_atomic_value.c - the arithmetic of atomic read-modify-writes on
 * values held as zero-extended integers, for the paths that compute a new
 * value themselves (float operations, the locked path), and the copies
 * between an object's bytes and such an integer.
 *
 * Layer: compiler-shim.  Entry points: shim_atomic_apply,
 * shim_atomic_apply_bytes, shim_atomic_bytes_get, shim_atomic_bytes_put.
 * Pure functions: any thread.
 */
#include <string.h>

#include "base_log.h"
#include "shim_atomic.h"

uint64_t shim_atomic_bytes_get(const void *bytes, size_t size)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (size) {
    case 1: memcpy(&u8, bytes, 1); return u8;
    case 2: memcpy(&u16, bytes, 2); return u16;
    case 4: memcpy(&u32, bytes, 4); return u32;
    case 8: memcpy(&u64, bytes, 8); return u64;
    default: dsm_fatal("atomic value of %zu bytes in a word", size);
    }
}

void shim_atomic_bytes_put(void *bytes, size_t size, uint64_t value)
{
    uint8_t u8 = (uint8_t)value;
    uint16_t u16 = (uint16_t)value;
    uint32_t u32 = (uint32_t)value;
    switch (size) {
    case 1: memcpy(bytes, &u8, 1); return;
    case 2: memcpy(bytes, &u16, 2); return;
    case 4: memcpy(bytes, &u32, 4); return;
    case 8: memcpy(bytes, &value, 8); return;
    default: dsm_fatal("atomic value of %zu bytes in a word", size);
    }
}

/* The low size bytes as a signed number. */
static int64_t as_signed(uint64_t v, size_t size)
{
    switch (size) {
    case 1: return (int8_t)v;
    case 2: return (int16_t)v;
    case 4: return (int32_t)v;
    default: return (int64_t)v;
    }
}

static uint64_t float_apply(int op, size_t size, uint64_t old,
                            uint64_t operand)
{
    if (size == 4) {
        float a, b;
        uint32_t bits_a = (uint32_t)old, bits_b = (uint32_t)operand;
        memcpy(&a, &bits_a, 4);
        memcpy(&b, &bits_b, 4);
        float r = op == DSM_RMW_FADD ? a + b : a - b;
        uint32_t bits_r;
        memcpy(&bits_r, &r, 4);
        return bits_r;
    }
    if (size == 8) {
        double a, b;
        memcpy(&a, &old, 8);
        memcpy(&b, &operand, 8);
        double r = op == DSM_RMW_FADD ? a + b : a - b;
        uint64_t bits_r;
        memcpy(&bits_r, &r, 8);
        return bits_r;
    }
    dsm_fatal("atomic float operation on %zu bytes", size);
}

uint64_t shim_atomic_apply(int op, size_t size, uint64_t old,
                           uint64_t operand)
{
    uint64_t mask = size >= 8 ? UINT64_MAX : (UINT64_C(1) << (size * 8)) - 1;
    uint64_t a = old & mask, b = operand & mask, r;
    switch (op) {
    case DSM_RMW_XCHG: r = b; break;
    case DSM_RMW_ADD:  r = a + b; break;
    case DSM_RMW_SUB:  r = a - b; break;
    case DSM_RMW_AND:  r = a & b; break;
    case DSM_RMW_NAND: r = ~(a & b); break;
    case DSM_RMW_OR:   r = a | b; break;
    case DSM_RMW_XOR:  r = a ^ b; break;
    case DSM_RMW_MAX:  r = as_signed(a, size) >= as_signed(b, size) ? a : b; break;
    case DSM_RMW_MIN:  r = as_signed(a, size) <= as_signed(b, size) ? a : b; break;
    case DSM_RMW_UMAX: r = a >= b ? a : b; break;
    case DSM_RMW_UMIN: r = a <= b ? a : b; break;
    case DSM_RMW_FADD:
    case DSM_RMW_FSUB: r = float_apply(op, size, a, b); break;
    default: dsm_fatal("unknown atomic operation %d", op);
    }
    return r & mask;
}

typedef unsigned __int128 u128;

static u128 apply_wide(int op, u128 a, u128 b)
{
    switch (op) {
    case DSM_RMW_ADD:  return a + b;
    case DSM_RMW_SUB:  return a - b;
    case DSM_RMW_AND:  return a & b;
    case DSM_RMW_NAND: return ~(a & b);
    case DSM_RMW_OR:   return a | b;
    case DSM_RMW_XOR:  return a ^ b;
    default: dsm_fatal("atomic operation %d on 16 bytes", op);
    }
}

void shim_atomic_apply_bytes(int op, size_t size, const void *old,
                             const void *operand, void *result)
{
    if (size == 16) {
        u128 a, b, r;
        memcpy(&a, old, 16);
        memcpy(&b, operand, 16);
        r = apply_wide(op, a, b);
        memcpy(result, &r, 16);
        return;
    }
    shim_atomic_bytes_put(result, size,
                          shim_atomic_apply(op, size,
                                            shim_atomic_bytes_get(old, size),
                                            shim_atomic_bytes_get(operand,
                                                                  size)));
}
