/* plug_builtins.c - every kind of atomic builtin gcc keeps as a call until
 * expansion, on addresses that may be sharable (globals, pointers): dsm's
 * GCC plug-in must turn each into the runtime entry of atomic_abi.h, at
 * -O0 and -O2 alike, and leave no native atomic instruction
 * (check_gimple.sh --no-native).  The gnu suite. */
#include <stdbool.h>
#include <stdint.h>

unsigned char c8;
unsigned short s16;
unsigned int u32;
unsigned long u64;
__int128 wide;
struct odd { char bytes[3]; } odd3;

/* CHECK-LABEL: Function loads
 * CHECK: __dsm_atomic_load_1 ({{.*}}c8, 2)
 * CHECK: __dsm_atomic_load_2 ({{.*}}s16, 5)
 * CHECK: __dsm_atomic_load_4 ({{.*}}u32, 0)
 * CHECK: __dsm_atomic_load_8 ({{.*}}u64, 5)
 */
unsigned long loads(void)
{
    return __atomic_load_n(&c8, __ATOMIC_ACQUIRE) +
           __atomic_load_n(&s16, __ATOMIC_SEQ_CST) +
           __atomic_load_n(&u32, __ATOMIC_RELAXED) +
           __atomic_load_n(&u64, __ATOMIC_SEQ_CST);
}

/* CHECK-LABEL: Function stores
 * CHECK: __dsm_atomic_store_1 ({{.*}}c8, 7, 3)
 * CHECK: __dsm_atomic_store_8 ({{.*}}u64, 9, 5)
 * CHECK: __dsm_atomic_store_4 ({{.*}}, 0, 0)
 */
void stores(unsigned int *p)
{
    __atomic_store_n(&c8, 7, __ATOMIC_RELEASE);
    __atomic_store_n(&u64, 9, __ATOMIC_SEQ_CST);
    __atomic_store_n(p, 0, __ATOMIC_RELAXED);
}

/* op 0 xchg, 1 add, 2 sub, 3 and, 4 nand, 5 or, 6 xor (atomic_abi.h)
 * CHECK-LABEL: Function rmws
 * CHECK: __dsm_atomic_rmw_4 ({{.*}}u32, 5, 0, 5)
 * CHECK: __dsm_atomic_rmw_4 ({{.*}}u32, 1, 1, 0)
 * CHECK: __dsm_atomic_rmw_2 ({{.*}}s16, 2, 2, 0)
 * CHECK: __dsm_atomic_rmw_8 ({{.*}}u64, 12, 3, 4)
 * CHECK: __dsm_atomic_rmw_1 ({{.*}}c8, 1, 4, 0)
 * CHECK: __dsm_atomic_rmw_8 ({{.*}}u64, 1, 5, 0)
 * CHECK: __dsm_atomic_rmw_4 ({{.*}}u32, 3, 6, 0)
 * CHECK: __dsm_atomic_rmw_4 ({{.*}}u32, 10, 1, 0)
 */
unsigned long rmws(void)
{
    unsigned long r = __atomic_exchange_n(&u32, 5, __ATOMIC_SEQ_CST);
    r += __atomic_fetch_add(&u32, 1, __ATOMIC_RELAXED);
    r += __atomic_fetch_sub(&s16, 2, __ATOMIC_RELAXED);
    r += __atomic_fetch_and(&u64, 12, __ATOMIC_ACQ_REL);
    r += __atomic_fetch_nand(&c8, 1, __ATOMIC_RELAXED);
    r += __atomic_fetch_or(&u64, 1, __ATOMIC_RELAXED);
    r += __atomic_fetch_xor(&u32, 3, __ATOMIC_RELAXED);
    /* the new value, computed from the old one */
    r += __atomic_add_fetch(&u32, 10, __ATOMIC_RELAXED);
    return r;
}

/* CHECK-LABEL: Function exchanges
 * CHECK: __dsm_atomic_cmpxchg_4 ({{.*}}u32, {{.*}}, 5, 2)
 * CHECK: __dsm_atomic_rmw_1 ({{.*}}c8, 1, 0, 5)
 * CHECK: __dsm_atomic_store_1 ({{.*}}c8, 0, 3)
 */
bool exchanges(unsigned int expected)
{
    bool ok = __atomic_compare_exchange_n(&u32, &expected, expected + 1, 0,
                                          __ATOMIC_SEQ_CST,
                                          __ATOMIC_ACQUIRE);
    ok |= __atomic_test_and_set(&c8, __ATOMIC_SEQ_CST);
    __atomic_clear(&c8, __ATOMIC_RELEASE);
    return ok;
}

/* the legacy builtins: seq_cst, test-and-set acquire, release store
 * CHECK-LABEL: Function legacy
 * CHECK: __dsm_atomic_rmw_8 ({{.*}}u64, 4, 1, 5)
 * CHECK: __dsm_atomic_rmw_4 ({{.*}}u32, 6, 6, 5)
 * CHECK: __dsm_atomic_cmpxchg_4 ({{.*}}u32, 1, 2, 5, 5)
 * CHECK: __dsm_atomic_cmpxchg_8 ({{.*}}u64, 3, 4, 5, 5)
 * CHECK: __dsm_atomic_rmw_4 ({{.*}}u32, 1, 0, 2)
 * CHECK: __dsm_atomic_store_4 ({{.*}}u32, 0, 3)
 */
unsigned long legacy(void)
{
    unsigned long r = __sync_fetch_and_add(&u64, 4);
    r += __sync_xor_and_fetch(&u32, 6);
    r += __sync_bool_compare_and_swap(&u32, 1, 2);
    r += __sync_val_compare_and_swap(&u64, 3, 4);
    r += __sync_lock_test_and_set(&u32, 1);
    __sync_lock_release(&u32);
    return r;
}

/* 16 bytes and odd sizes: libatomic's twins
 * CHECK-LABEL: Function wide_ops
 * CHECK: __dsm_libatomic_load_16 ({{.*}}wide, 5)
 * CHECK: __dsm_libatomic_fetch_add_16 ({{.*}}wide, 1, 0)
 * CHECK: __dsm_libatomic_store_16 ({{.*}}wide, {{.*}}, 3)
 * CHECK: __dsm_libatomic_load (3, {{.*}}odd3, {{.*}}, 5)
 */
__int128 wide_ops(struct odd *out)
{
    __int128 v = __atomic_load_n(&wide, __ATOMIC_SEQ_CST);
    v += __atomic_fetch_add(&wide, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&wide, v, __ATOMIC_RELEASE);
    __atomic_load(&odd3, out, __ATOMIC_SEQ_CST);
    return v;
}

/* __sync_synchronize, gcc's code for flush, is the runtime's flush
 * CHECK-LABEL: Function fence
 * CHECK: __kmpc_flush (0B)
 */
void fence(void) { __sync_synchronize(); }
