/*
 * fuzz_diff_roundtrip.c - libFuzzer harness of the diff codec (coh_diff.c):
 * decode(encode(page, twin)) must reproduce the page, byte for byte, and
 * must write nothing but the bytes that changed.
 *
 * Input: 8 bytes seeding the twin's contents, then edits of 3 bytes each
 * (u16 offset in the page, u8 value) applied to a copy of the twin to make
 * the page.  Checks, for every input:
 *   - the encoding fits DSM_DIFF_MAX_ENCODED and is empty iff page == twin;
 *   - applied to the twin it gives the page;
 *   - applied to another writer's copy of the page (the twin with other
 *     bytes changed) it writes exactly the bytes where page and twin
 *     differ, keeping the other writer's bytes (byte-exact diffs);
 *   - the byte count reported by dsm_diff_apply is the number of bytes
 *     that differ.
 * A failed check aborts (libFuzzer saves the input as a crash).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coh_diff.h"
#include "fuzz_check.h"

#define PAGE 4096u

static unsigned char twin[PAGE], page[PAGE], out[PAGE], other[PAGE],
    expect[PAGE];
static unsigned char enc[DSM_DIFF_MAX_ENCODED(PAGE)];

/* xorshift64: a twin with arbitrary but reproducible contents */
static void fill(unsigned char *p, uint64_t seed)
{
    uint64_t x = seed | 1;
    for (size_t i = 0; i < PAGE; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(p + i, &x, 8);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    uint64_t seed;
    memcpy(&seed, data, 8);
    /* seed 0 stands for a zero page, the commonest twin of all */
    if (seed)
        fill(twin, seed);
    else
        memset(twin, 0, PAGE);
    memcpy(page, twin, PAGE);
    for (size_t i = 8; i + 3 <= size; i += 3) {
        size_t off = ((size_t)data[i] | (size_t)data[i + 1] << 8) % PAGE;
        page[off] = data[i + 2];
    }

    size_t len = dsm_diff_encode(page, twin, PAGE, enc);
    FUZZ_CHECK(len <= DSM_DIFF_MAX_ENCODED(PAGE));
    size_t changed = 0;
    for (size_t i = 0; i < PAGE; i++)
        changed += page[i] != twin[i];
    FUZZ_CHECK((len == 0) == (changed == 0));

    size_t bytes = 0;
    memcpy(out, twin, PAGE);
    FUZZ_CHECK(dsm_diff_apply(out, PAGE, enc, len, &bytes) == DSM_OK);
    FUZZ_CHECK(memcmp(out, page, PAGE) == 0);
    FUZZ_CHECK(bytes == changed);

    /* Another writer changed every byte of its copy that this one left
     * alone (the hardest case: each neighbour byte must survive). */
    for (size_t i = 0; i < PAGE; i++) {
        other[i] = page[i] == twin[i] ? (unsigned char)~twin[i] : twin[i];
        expect[i] = page[i] == twin[i] ? other[i] : page[i];
    }
    FUZZ_CHECK(dsm_diff_apply(other, PAGE, enc, len, NULL) == DSM_OK);
    FUZZ_CHECK(memcmp(other, expect, PAGE) == 0);
    return 0;
}
