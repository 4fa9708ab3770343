/*
 * fuzz_heap_free.c - libFuzzer harness of the sharable heap's allocator as
 * another node drives it: a COH_AM_HEAP_FREE or _SIZE_REQ message carries
 * any 64-bit pointer, and the owner hands it to dsm_arena_free or
 * dsm_arena_usable_size (runtime/coherence/coh_arena.c), which must refuse
 * anything but a live block and leave the arena unchanged.
 *
 * Input: a sequence of operations of 9 bytes (op, then a u64 operand) on an
 * arena of ARENA_PAGES pages (never touched: the allocator keeps its
 * metadata out of band).  Operations (op % 6): allocate (size and
 * alignment from the operand), free a live block, free a forged pointer
 * inside the arena or anywhere (with bit 7 of op set: ask its size
 * instead), free a block twice, resize a live block in place.
 * Checks: a forged pointer is accepted exactly when it is a live block's
 * start; live blocks never overlap; usable sizes cover the sizes asked for;
 * the arena's invariant checker passes after every sequence.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "coh_arena.h"
#include "fuzz_check.h"

#define ARENA_LO ((uintptr_t)1 << 40)
#define ARENA_PAGES 4096u
#define ARENA_HI (ARENA_LO + (uintptr_t)ARENA_PAGES * 4096u)
#define MAX_LIVE 128

typedef struct live { uintptr_t ptr; size_t size; } live_t;

static int find(const live_t *l, int n, uintptr_t p)
{
    for (int i = 0; i < n; i++)
        if (l[i].ptr == p)
            return i;
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dsm_arena_t *arena;
    FUZZ_CHECK(dsm_arena_create(ARENA_LO, ARENA_HI, &arena) == DSM_OK);
    live_t live[MAX_LIVE];
    int nlive = 0;
    uintptr_t freed = 0;
    for (size_t at = 0; at + 9 <= size; at += 9) {
        uint64_t v;
        memcpy(&v, data + at + 1, sizeof v);
        size_t usable;
        switch (data[at] % 6) {
        case 0: {                                   /* allocate */
            size_t want = (size_t)(v & 0xfffff);    /* up to 1 MiB */
            size_t align = (size_t)1 << ((v >> 20) % 14);
            uintptr_t p;
            if (nlive == MAX_LIVE ||
                dsm_arena_alloc(arena, want, align, &p) != DSM_OK)
                break;
            FUZZ_CHECK(p >= ARENA_LO && p < ARENA_HI && p % align == 0);
            FUZZ_CHECK(find(live, nlive, p) < 0);
            FUZZ_CHECK(dsm_arena_usable_size(arena, p, &usable) == DSM_OK);
            FUZZ_CHECK(usable >= want && usable <= ARENA_HI - p);
            for (int i = 0; i < nlive; i++) {
                size_t u;
                FUZZ_CHECK(dsm_arena_usable_size(arena, live[i].ptr, &u) ==
                           DSM_OK);
                FUZZ_CHECK(p + usable <= live[i].ptr || live[i].ptr + u <= p);
            }
            live[nlive++] = (live_t){p, want};
            break;
        }
        case 1: {                                   /* free a live block */
            if (!nlive)
                break;
            int i = (int)(v % (uint64_t)nlive);
            FUZZ_CHECK(dsm_arena_free(arena, live[i].ptr) == DSM_OK);
            freed = live[i].ptr;
            live[i] = live[--nlive];
            break;
        }
        case 2:                                     /* forged, in the arena */
            v = ARENA_LO + v % (ARENA_HI - ARENA_LO);
            /* fall through */
        case 3: {                                   /* forged, anywhere */
            int i = find(live, nlive, (uintptr_t)v);
            dsm_status_t st = (data[at] & 0x80)
                                  ? dsm_arena_usable_size(arena, v, &usable)
                                  : dsm_arena_free(arena, v);
            FUZZ_CHECK((st == DSM_OK) == (i >= 0));
            if (st == DSM_OK && !(data[at] & 0x80)) {
                freed = live[i].ptr;
                live[i] = live[--nlive];
            }
            break;
        }
        case 4:                                     /* free twice */
            if (freed && find(live, nlive, freed) < 0)
                FUZZ_CHECK(dsm_arena_free(arena, freed) == DSM_ERR_INVALID);
            break;
        case 5: {                                   /* resize in place */
            if (!nlive)
                break;
            int i = (int)(v % (uint64_t)nlive);
            size_t want = (size_t)((v >> 16) & 0xfffff);
            if (dsm_arena_resize_in_place(arena, live[i].ptr, want) ==
                DSM_OK) {
                FUZZ_CHECK(dsm_arena_usable_size(arena, live[i].ptr,
                                                 &usable) == DSM_OK);
                FUZZ_CHECK(usable >= want);
                live[i].size = want;
            }
            break;
        }
        }
    }
    FUZZ_CHECK(dsm_arena_check(arena));
    dsm_arena_destroy(arena);
    return 0;
}
