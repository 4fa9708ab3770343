/*
 * fj_window.c - finds the program's writable data: the main executable's
 * read-write PT_LOAD segment from the page-aligned end of its PT_GNU_RELRO
 * segment (the GOT and everything the dynamic linker writes stay private)
 * to the page-rounded end of its memory size - that is .data and .bss,
 * the globals the program's threads share.
 *
 * Layer: forkjoin.  Entry point: fj_program_window.  Start-up only, main
 * thread, before the runtime makes the window sharable.
 */
#include <link.h>
#include <stdint.h>

#include "base_log.h"
#include "fj_internal.h"
#include "sys_region.h"

typedef struct scan {
    int seen;                       /* the first object is the program */
    uintptr_t load_lo, load_hi;     /* the RW PT_LOAD */
    uintptr_t relro_lo, relro_hi;
    int has_load, has_relro;
} scan_t;

static int scan_program(struct dl_phdr_info *info, size_t size, void *arg)
{
    scan_t *s = arg;
    if (s->seen++)
        return 1;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && !s->has_load) {
            s->load_lo = lo;
            s->load_hi = lo + ph->p_memsz;
            s->has_load = 1;
        } else if (ph->p_type == PT_GNU_RELRO) {
            s->relro_lo = lo;
            s->relro_hi = lo + ph->p_memsz;
            s->has_relro = 1;
        }
    }
    return 1;
}

dsm_status_t fj_program_window(uintptr_t *base, size_t *len)
{
    scan_t s = {0};
    dl_iterate_phdr(scan_program, &s);
    const uintptr_t page = DSM_PAGE_SIZE;
    if (!s.has_load) {
        *base = 0;
        *len = 0;        /* no writable data: nothing to share */
        return DSM_OK;
    }
    if (!s.has_relro || s.relro_lo < s.load_lo || s.relro_hi > s.load_hi) {
        dsm_log(DSM_LOG_ERROR, "the program has no RELRO segment inside its "
                "writable segment: link it with dsmcc (-Wl,-z,relro,-z,now)");
        return DSM_ERR_INVALID;
    }
    if (s.relro_hi % page && s.relro_hi < s.load_hi) {
        /* the dynamic linker protects whole pages only, so data sharing the
         * RELRO's last page would stay private to each node */
        dsm_log(DSM_LOG_ERROR, "the program's data starts at %#lx, inside "
                "the last page of its RELRO segment: link it with dsmcc "
                "(GNU ld pads RELRO to a page)", (unsigned long)s.relro_hi);
        return DSM_ERR_INVALID;
    }
    uintptr_t lo = (s.relro_hi + page - 1) & ~(page - 1);
    uintptr_t hi = (s.load_hi + page - 1) & ~(page - 1);
    *base = lo;
    *len = hi > lo ? hi - lo : 0;
    return DSM_OK;
}
