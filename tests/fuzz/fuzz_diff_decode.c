/*
 * fuzz_diff_decode.c - libFuzzer harness of the diff decoder a home runs on
 * every diff it receives (dsm_diff_apply in coh_diff.c), fed arbitrary
 * bytes.
 *
 * Checks: no out-of-bounds access (AddressSanitizer: the page is a heap
 * block of exactly one page, so one byte past it is caught); a rejected
 * diff (DSM_ERR_PROTOCOL) leaves the page untouched; an accepted one writes
 * at most a page's worth of bytes and reports how many it wrote, and
 * re-encoding the result against the old page gives a diff that produces
 * the same page.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coh_diff.h"
#include "fuzz_check.h"

#define PAGE 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char before[PAGE], again[PAGE];
    static unsigned char enc[DSM_DIFF_MAX_ENCODED(PAGE)];
    unsigned char *page = malloc(PAGE);
    FUZZ_CHECK(page != NULL);
    for (size_t i = 0; i < PAGE; i++)
        before[i] = (unsigned char)(i * 7 + 3);
    memcpy(page, before, PAGE);

    /* an exact-size copy, so a read past the input's end is caught too */
    unsigned char *diff = malloc(size ? size : 1);
    FUZZ_CHECK(diff != NULL);
    memcpy(diff, data, size);

    size_t bytes = (size_t)-1;
    dsm_status_t st = dsm_diff_apply(page, PAGE, diff, size, &bytes);
    if (st != DSM_OK) {
        FUZZ_CHECK(st == DSM_ERR_PROTOCOL);
        FUZZ_CHECK(memcmp(page, before, PAGE) == 0);
        FUZZ_CHECK(bytes == (size_t)-1);   /* not written on failure */
    } else {
        size_t changed = 0;
        for (size_t i = 0; i < PAGE; i++)
            changed += page[i] != before[i];
        FUZZ_CHECK(bytes <= PAGE && bytes >= changed);
        size_t len = dsm_diff_encode(page, before, PAGE, enc);
        memcpy(again, before, PAGE);
        FUZZ_CHECK(dsm_diff_apply(again, PAGE, enc, len, NULL) == DSM_OK);
        FUZZ_CHECK(memcmp(again, page, PAGE) == 0);
    }
    free(diff);
    free(page);
    return 0;
}
