/*
 * node_tp_rma.c - one-sided operations between the nodes of a job: get and
 * put of every size on the sharable region (a sparse memfd of
 * DSM_REGION_SIZE bytes, 16 GiB by default) and the control segment,
 * non-blocking put with flush, every atomic in both widths, concurrent
 * fetch-add from all nodes, and a lock built on compare-and-swap.
 *
 * Layer: tests (links the transport and sys).  A node program run under
 * dsmrun; every node runs the same collective test list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "tp_test_util.h"

#define CONTROL_BYTES ((size_t)64 * 1024)
#define MIB ((uint64_t)1 << 20)

static tt_node_t node;

static uint64_t region_top(void) { return node.region.size; }

/* Offsets exercised in the region: the start, an odd place, and near the
 * end of a region that is mostly never touched. */
static uint64_t probe_offset(int which)
{
    switch (which) {
    case 0: return 0;
    case 1: return 4 * MIB + 3 * 4096 + 5;
    default: return region_top() - 3 * MIB + 123;
    }
}

static const size_t probe_sizes[] = {1, 7, 4096, 65536, 1 << 20};
#define NSIZES (sizeof probe_sizes / sizeof *probe_sizes)

/* ---- registration ------------------------------------------------------------- */

static void test_registration_is_lazy(void **state)
{
    /* registering the region allocated none of it */
    struct stat st;
    assert_int_equal(fstat(node.region.memfd, &st), 0);
    assert_true(st.st_blocks * 512 < (off_t)(16 * MIB));
    tt_barrier();
}

/* TT_EXPECT_MAPPED=1: every peer's region is mapped here (same host,
 * offered); 0: none is, and gets and puts go through UCX. */
static void test_same_host_mapping(void **state)
{
    const char *expect = getenv("TT_EXPECT_MAPPED");
    int want = expect && !strcmp(expect, "1");
    for (int r = 0; r < node.size; r++) {
        if (r == node.rank)
            continue;
        assert_int_equal(dsm_tp_peer_mapped(r, DSM_TP_SEG_REGION), want);
        assert_int_equal(dsm_tp_peer_mapped(r, DSM_TP_SEG_CONTROL), 0);
    }
    tt_barrier();
}

/* ---- get / put ---------------------------------------------------------------- */

static void fill(unsigned char *p, size_t len, unsigned a, unsigned b)
{
    for (size_t i = 0; i < len; i++)
        p[i] = tt_pattern(a, b, i);
}

static void expect(const unsigned char *p, size_t len, unsigned a, unsigned b)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != tt_pattern(a, b, i))
            fail_msg("byte %zu of %zu differs (pattern %u/%u)", i, len, a, b);
}

static void test_get_every_size(void **state)
{
    /* each node writes its own region through its memory... */
    for (int w = 0; w < 3; w++)
        fill((unsigned char *)node.region.rt + probe_offset(w), MIB,
             (unsigned)node.rank, (unsigned)w);
    tt_barrier();
    /* ...and everyone reads it with get, the node itself included */
    unsigned char *buf = malloc(MIB);
    assert_non_null(buf);
    for (int k = 0; k < node.size; k++) {
        int peer = (node.rank + k) % node.size;
        for (int w = 0; w < 3; w++)
            for (size_t s = 0; s < NSIZES; s++) {
                memset(buf, 0, probe_sizes[s]);
                assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION,
                                            probe_offset(w), buf,
                                            probe_sizes[s]), DSM_OK);
                expect(buf, probe_sizes[s], (unsigned)peer, (unsigned)w);
            }
    }
    free(buf);
    tt_barrier();
}

/* The bytes at [start, start+len) of pattern (a, b). */
static void expect_from(const unsigned char *p, size_t start, size_t len,
                        unsigned a, unsigned b)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != tt_pattern(a, b, start + i))
            fail_msg("byte %zu of [%zu, +%zu) differs (pattern %u/%u)",
                     start + i, start, len, a, b);
}

static void expect_zero(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i])
            fail_msg("byte %zu of %zu is %u, not 0", i, len, p[i]);
}

/* Gets into this node's own region, whole pages at page offsets, as the
 * fault handler makes them.  From a mapped peer, pages no get wrote here
 * before come by file copy and the others by memcpy (tp_direct_copy.c), so
 * the steps go: into pages never allocated (every other block of 8); the
 * whole range again, whose runs mix fetched and new pages; the same range
 * once more (all fetched before); from pages the peer never wrote (zeros
 * must arrive, also over a page we wrote); and within pages (memcpy).  The
 * destination is poisoned first wherever it may already hold the answer,
 * and every byte is checked.  Without a mapping the same gets go through
 * UCX and must give the same bytes. */
static void test_get_into_region(void **state)
{
    enum { PAGES = 96, BLOCK = 8 };
    const size_t len = (size_t)PAGES * 4096;
    const uint64_t src = 3072 * MIB, hole = 3200 * MIB;
    fill((unsigned char *)node.region.rt + src, len, (unsigned)node.rank, 50);
    tt_barrier();
    for (int k = 1; k < node.size; k++) {
        int peer = (node.rank + k) % node.size;
        uint64_t dst = 3300 * MIB + (uint64_t)k * 2 * len;
        unsigned char *d = (unsigned char *)node.region.rt + dst;
        for (size_t p = 0; p < PAGES; p += 2 * BLOCK) {
            assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION,
                                        src + p * 4096, d + p * 4096,
                                        BLOCK * 4096), DSM_OK);
            expect_from(d + p * 4096, p * 4096, BLOCK * 4096,
                        (unsigned)peer, 50);
        }
        for (int again = 0; again < 2; again++) {
            memset(d, 0xa5, len);
            assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION, src, d, len),
                             DSM_OK);
            expect_from(d, 0, len, (unsigned)peer, 50);
        }
        unsigned char *z = d + len;
        memset(z, 0xa5, 4096);   /* one page exists here, the rest not */
        assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION, hole, z,
                                    BLOCK * 4096), DSM_OK);
        expect_zero(z, BLOCK * 4096);
        memset(d, 0xa5, len);
        assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION, src + 100,
                                    d + 100, 3 * 4096), DSM_OK);
        expect_from(d + 100, 100, 3 * 4096, (unsigned)peer, 50);
        assert_int_equal(d[99], 0xa5);
        assert_int_equal(d[100 + 3 * 4096], 0xa5);
    }
    tt_barrier();
}

/* Node r writes into node t at 1 GiB + r MiB. */
static uint64_t put_area(int writer) { return 1024 * MIB + (uint64_t)writer * MIB; }

static void test_put_every_size(void **state)
{
    unsigned char *buf = malloc(MIB);
    assert_non_null(buf);
    for (int k = 0; k < node.size; k++) {
        int target = (node.rank + k) % node.size;
        fill(buf, MIB, (unsigned)node.rank, 100u + (unsigned)target);
        uint64_t off = put_area(node.rank);
        /* pieces of every size, back to back */
        for (size_t s = 0, done = 0; s < NSIZES && done < MIB; s++) {
            size_t len = probe_sizes[s] < MIB - done ? probe_sizes[s]
                                                     : MIB - done;
            assert_int_equal(dsm_tp_put(target, DSM_TP_SEG_REGION,
                                        off + done, buf + done, len), DSM_OK);
            done += len;
            if (s == NSIZES - 1 && done < MIB)
                assert_int_equal(dsm_tp_put(target, DSM_TP_SEG_REGION,
                                            off + done, buf + done,
                                            MIB - done), DSM_OK);
        }
    }
    tt_barrier();
    /* a blocking put is visible at the target when it returns */
    for (int writer = 0; writer < node.size; writer++)
        expect((unsigned char *)node.region.rt + put_area(writer), MIB,
               (unsigned)writer, 100u + (unsigned)node.rank);
    free(buf);
    tt_barrier();
}

static void test_put_nb_and_flush(void **state)
{
    enum { PIECES = 64, PIECE = 4096 };
    unsigned char *buf = malloc(PIECES * PIECE);
    assert_non_null(buf);
    fill(buf, PIECES * PIECE, (unsigned)node.rank, 7);
    uint64_t base = 2048 * MIB + (uint64_t)node.rank * PIECES * PIECE;
    for (int k = 0; k < node.size; k++) {
        int target = (node.rank + k) % node.size;
        for (int i = 0; i < PIECES; i++)
            assert_int_equal(dsm_tp_put_nb(target, DSM_TP_SEG_REGION,
                                           base + (uint64_t)i * PIECE,
                                           buf + (size_t)i * PIECE, PIECE),
                             DSM_OK);
        if (k % 2)
            assert_int_equal(dsm_tp_flush(target), DSM_OK);
    }
    assert_int_equal(dsm_tp_flush(-1), DSM_OK);
    tt_barrier();
    for (int writer = 0; writer < node.size; writer++)
        expect((unsigned char *)node.region.rt + 2048 * MIB +
                   (uint64_t)writer * PIECES * PIECE,
               PIECES * PIECE, (unsigned)writer, 7);
    free(buf);
    tt_barrier();
}

/* Gets in one batch, more than are in flight at once, of every length
 * from 1 byte to 2 pages, from scattered offsets in reverse order: each
 * lands where its item says, and nothing lands elsewhere. */
static void test_get_batch(void **state)
{
    enum { ITEMS = 150, SPAN = 8192 };
    uint64_t base = 2560 * MIB;
    fill((unsigned char *)node.region.rt + base, ITEMS * SPAN,
         (unsigned)node.rank, 11);
    tt_barrier();
    unsigned char *buf = calloc(ITEMS, SPAN);
    dsm_tp_get_item_t *items = calloc(ITEMS, sizeof *items);
    assert_non_null(buf);
    assert_non_null(items);
    for (int k = 0; k < node.size; k++) {
        int target = (node.rank + k) % node.size;
        memset(buf, 0, (size_t)ITEMS * SPAN);
        for (int i = 0; i < ITEMS; i++) {
            int at = ITEMS - 1 - i;
            size_t len = 1 + ((size_t)at * 977) % SPAN;
            items[i] = (dsm_tp_get_item_t){base + (uint64_t)at * SPAN + 3,
                                           buf + (size_t)at * SPAN, len};
            if (items[i].len > SPAN - 3)
                items[i].len = SPAN - 3;
        }
        assert_int_equal(dsm_tp_get_batch(target, DSM_TP_SEG_REGION, items,
                                          ITEMS), DSM_OK);
        for (int i = 0; i < ITEMS; i++) {
            size_t at = (size_t)(ITEMS - 1 - i);
            expect_from(buf + at * SPAN, at * SPAN + 3, items[i].len,
                        (unsigned)target, 11);
            expect_zero(buf + at * SPAN + items[i].len,
                        SPAN - items[i].len);
        }
    }
    /* an item out of range fails the batch */
    int peer = (node.rank + 1) % node.size;
    items[0] = (dsm_tp_get_item_t){region_top() - 4, buf, 8};
    assert_int_equal(dsm_tp_get_batch(peer, DSM_TP_SEG_REGION, items, 1),
                     DSM_ERR_INVALID);
    free(items);
    free(buf);
    tt_barrier();
}

static void test_rma_errors(void **state)
{
    char b[8] = {0};
    uint64_t top = region_top();
    int peer = (node.rank + 1) % node.size;
    assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION, top, b, 1),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION, top - 4, b, 8),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION, UINT64_MAX - 2, b,
                                8), DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_put(peer, DSM_TP_SEG_CONTROL, CONTROL_BYTES - 4,
                                b, 8), DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_get(peer, (dsm_tp_segment_t)7, 0, b, 1),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_get(node.size, DSM_TP_SEG_REGION, 0, b, 1),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION, 0, NULL, 1),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_put_nb(-1, DSM_TP_SEG_REGION, 0, b, 1),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_flush(node.size), DSM_ERR_INVALID);
    /* the last byte, and nothing at the very end */
    assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION, top - 1, b, 1),
                     DSM_OK);
    assert_int_equal(dsm_tp_get(peer, DSM_TP_SEG_REGION, top, b, 0), DSM_OK);
    tt_barrier();
}

/* ---- atomics ------------------------------------------------------------------ */

/* Control segment words used below (byte offsets). */
enum {
    W_FADD64 = 0,
    W_FADD32 = 8,
    W_SWAP64 = 16,
    W_SWAP32 = 24,
    W_CSWAP64 = 32,
    W_CSWAP32 = 40,
    W_LOCK64 = 64,
    W_LOCK32 = 72,
    COUNTER_OFFSET = 8 * 4096,   /* in the region of the lock's home */
};

static uint64_t *control_word(size_t offset)
{
    return (uint64_t *)((char *)node.control + offset);
}

static void test_atomic_kinds(void **state)
{
    int next = (node.rank + 1) % node.size;
    int prev = (node.rank + node.size - 1) % node.size;
    uint64_t old64;
    uint32_t old32;
    *control_word(W_SWAP64) = 0x1111;
    *(uint32_t *)control_word(W_SWAP32) = 0x2222;
    *control_word(W_CSWAP64) = 5;
    *(uint32_t *)control_word(W_CSWAP32) = 6;
    tt_barrier();

    assert_int_equal(dsm_tp_atomic_swap64(next, DSM_TP_SEG_CONTROL, W_SWAP64,
                                          0xabcdef0123456789ull, &old64),
                     DSM_OK);
    assert_int_equal(old64, 0x1111);
    assert_int_equal(dsm_tp_atomic_swap32(next, DSM_TP_SEG_CONTROL, W_SWAP32,
                                          0x89abcdefu, &old32), DSM_OK);
    assert_int_equal(old32, 0x2222);
    /* a failing and a succeeding compare-and-swap */
    assert_int_equal(dsm_tp_atomic_cswap64(next, DSM_TP_SEG_CONTROL,
                                           W_CSWAP64, 4, 40, &old64), DSM_OK);
    assert_int_equal(old64, 5);
    assert_int_equal(dsm_tp_atomic_cswap64(next, DSM_TP_SEG_CONTROL,
                                           W_CSWAP64, 5, 1ull << 40, &old64),
                     DSM_OK);
    assert_int_equal(old64, 5);
    assert_int_equal(dsm_tp_atomic_cswap32(next, DSM_TP_SEG_CONTROL,
                                           W_CSWAP32, 7, 70, &old32), DSM_OK);
    assert_int_equal(old32, 6);
    assert_int_equal(dsm_tp_atomic_cswap32(next, DSM_TP_SEG_CONTROL,
                                           W_CSWAP32, 6, 0xfffffff0u, &old32),
                     DSM_OK);
    assert_int_equal(old32, 6);
    tt_barrier();
    /* what the previous node did to this node's words */
    assert_int_equal(*control_word(W_SWAP64), 0xabcdef0123456789ull);
    assert_int_equal(*(uint32_t *)control_word(W_SWAP32), 0x89abcdefu);
    assert_int_equal(*control_word(W_CSWAP64), 1ull << 40);
    assert_int_equal(*(uint32_t *)control_word(W_CSWAP32), 0xfffffff0u);
    /* and the same seen from the other side with get */
    uint64_t seen;
    assert_int_equal(dsm_tp_get(prev, DSM_TP_SEG_CONTROL, W_SWAP64, &seen,
                                sizeof seen), DSM_OK);
    assert_int_equal(seen, 0xabcdef0123456789ull);
    /* the 32-bit words left their neighbours alone */
    assert_int_equal(*(uint32_t *)((char *)node.control + W_SWAP32 + 4), 0);
    assert_int_equal(*(uint32_t *)((char *)node.control + W_CSWAP32 + 4), 0);
    tt_barrier();
}

static void test_atomic_errors(void **state)
{
    uint64_t old64;
    uint32_t old32;
    int peer = (node.rank + 1) % node.size;
    assert_int_equal(dsm_tp_atomic_fadd64(peer, DSM_TP_SEG_CONTROL, 4, 1,
                                          &old64), DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_atomic_fadd32(peer, DSM_TP_SEG_CONTROL, 2, 1,
                                          &old32), DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_atomic_swap64(peer, DSM_TP_SEG_CONTROL,
                                          CONTROL_BYTES, 1, &old64),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_atomic_cswap32(peer, DSM_TP_SEG_CONTROL,
                                           CONTROL_BYTES - 2, 0, 1, &old32),
                     DSM_ERR_INVALID);
    assert_int_equal(dsm_tp_atomic_fadd64(node.size, DSM_TP_SEG_CONTROL, 0, 1,
                                          &old64), DSM_ERR_INVALID);
    tt_barrier();
}

/* Every node adds to node 0's counters at once; the sums must be exact and
 * each node must see its own old values increase. */
static void test_concurrent_fetch_add(void **state)
{
    enum { ROUNDS = 400 };
    tt_barrier();
    uint64_t last64 = 0;
    uint32_t last32 = 0;
    for (int i = 0; i < ROUNDS; i++) {
        uint64_t old64;
        uint32_t old32;
        assert_int_equal(dsm_tp_atomic_fadd64(0, DSM_TP_SEG_CONTROL, W_FADD64,
                                              (uint64_t)node.rank + 1, &old64),
                         DSM_OK);
        assert_int_equal(dsm_tp_atomic_fadd32(0, DSM_TP_SEG_CONTROL, W_FADD32,
                                              1u << node.rank, &old32),
                         DSM_OK);
        if (i > 0) {
            assert_true(old64 > last64);
            assert_true(old32 > last32);
        }
        last64 = old64;
        last32 = old32;
    }
    tt_barrier();
    uint64_t sum64 = 0, sum32 = 0;
    for (int r = 0; r < node.size; r++) {
        sum64 += ROUNDS * ((uint64_t)r + 1);
        sum32 += ROUNDS * (1u << r);
    }
    uint64_t got64;
    uint32_t got32;
    assert_int_equal(dsm_tp_get(0, DSM_TP_SEG_CONTROL, W_FADD64, &got64,
                                sizeof got64), DSM_OK);
    assert_int_equal(dsm_tp_get(0, DSM_TP_SEG_CONTROL, W_FADD32, &got32,
                                sizeof got32), DSM_OK);
    assert_int_equal(got64, sum64);
    assert_int_equal(got32, (uint32_t)sum32);
    /* atomics work on the region too, far into it */
    uint64_t old;
    uint64_t far = region_top() - 4096;
    assert_int_equal(dsm_tp_atomic_fadd64(0, DSM_TP_SEG_REGION, far, 1, &old),
                     DSM_OK);
    tt_barrier();
    assert_int_equal(dsm_tp_get(0, DSM_TP_SEG_REGION, far, &got64,
                                sizeof got64), DSM_OK);
    assert_int_equal(got64, (uint64_t)node.size);
    tt_barrier();
}

/* A lock word at `home`, taken with compare-and-swap, protecting a counter
 * in home's region that is updated with get and put. */
static void lock_and_count(int home, int wide, int rounds)
{
    const uint64_t me = (uint64_t)node.rank + 1;
    for (int i = 0; i < rounds; i++) {
        for (;;) {
            uint64_t old64 = 0;
            uint32_t old32 = 0;
            if (wide)
                assert_int_equal(dsm_tp_atomic_cswap64(home,
                                 DSM_TP_SEG_CONTROL, W_LOCK64, 0, me, &old64),
                                 DSM_OK);
            else
                assert_int_equal(dsm_tp_atomic_cswap32(home,
                                 DSM_TP_SEG_CONTROL, W_LOCK32, 0,
                                 (uint32_t)me, &old32), DSM_OK);
            if ((wide ? old64 : old32) == 0)
                break;
            dsm_tp_progress();
        }
        uint64_t counter;
        assert_int_equal(dsm_tp_get(home, DSM_TP_SEG_REGION, COUNTER_OFFSET,
                                    &counter, sizeof counter), DSM_OK);
        counter++;
        assert_int_equal(dsm_tp_put(home, DSM_TP_SEG_REGION, COUNTER_OFFSET,
                                    &counter, sizeof counter), DSM_OK);
        if (wide) {
            uint64_t old64;
            assert_int_equal(dsm_tp_atomic_swap64(home, DSM_TP_SEG_CONTROL,
                                                  W_LOCK64, 0, &old64),
                             DSM_OK);
            assert_int_equal(old64, me);
        } else {
            uint32_t old32;
            assert_int_equal(dsm_tp_atomic_swap32(home, DSM_TP_SEG_CONTROL,
                                                  W_LOCK32, 0, &old32),
                             DSM_OK);
            assert_int_equal(old32, (uint32_t)me);
        }
    }
}

static void run_lock_test(int home, int wide)
{
    enum { ROUNDS = 60 };
    if (node.rank == home)
        memset((char *)node.region.rt + COUNTER_OFFSET, 0, 8);
    tt_barrier();
    lock_and_count(home, wide, ROUNDS);
    tt_barrier();
    if (node.rank == home) {
        uint64_t counter;
        memcpy(&counter, (char *)node.region.rt + COUNTER_OFFSET, 8);
        assert_int_equal(counter, (uint64_t)ROUNDS * (uint64_t)node.size);
    }
    tt_barrier();
}

static void test_cswap_lock_64(void **state) { run_lock_test(0, 1); }
static void test_cswap_lock_32(void **state)
{
    run_lock_test(node.size - 1, 0);
}

static void test_counters(void **state)
{
    dsm_tp_counters_t before, after;
    dsm_tp_counters_get(&before);
    char buf[100];
    uint64_t old;
    assert_int_equal(dsm_tp_get(0, DSM_TP_SEG_REGION, 0, buf, sizeof buf),
                     DSM_OK);
    assert_int_equal(dsm_tp_put(node.rank, DSM_TP_SEG_REGION, 8 * MIB, buf,
                                sizeof buf), DSM_OK);
    assert_int_equal(dsm_tp_atomic_fadd64(0, DSM_TP_SEG_CONTROL, 128, 1, &old),
                     DSM_OK);
    dsm_tp_counters_get(&after);
    assert_int_equal(after.gets - before.gets, 1);
    assert_int_equal(after.get_bytes - before.get_bytes, sizeof buf);
    assert_int_equal(after.puts - before.puts, 1);
    assert_int_equal(after.put_bytes - before.put_bytes, sizeof buf);
    assert_int_equal(after.atomics - before.atomics, 1);
    tt_barrier();
}

int main(void)
{
    tt_prepare();
    tt_start(&node, CONTROL_BYTES);
    if (node.region.size < 4096 * MIB) {
        /* the put areas live above 2 GiB */
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registration_is_lazy),
        cmocka_unit_test(test_same_host_mapping),
        cmocka_unit_test(test_get_every_size),
        cmocka_unit_test(test_get_into_region),
        cmocka_unit_test(test_put_every_size),
        cmocka_unit_test(test_put_nb_and_flush),
        cmocka_unit_test(test_get_batch),
        cmocka_unit_test(test_rma_errors),
        cmocka_unit_test(test_atomic_kinds),
        cmocka_unit_test(test_atomic_errors),
        cmocka_unit_test(test_concurrent_fetch_add),
        cmocka_unit_test(test_cswap_lock_64),
        cmocka_unit_test(test_cswap_lock_32),
        cmocka_unit_test(test_counters),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    tt_stop(&node);
    return failed ? 1 : 0;
}
