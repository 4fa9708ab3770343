/*
 * coh_report_names.c - names for the sharing report: where code is
 * ("prog.c:14 (main)" from the DWARF line table, "main (prog)" without
 * debug information), and the heap blocks of this node's arena at given
 * words, with the call sites that allocated them (the names reply).
 *
 * Layer: coherence.  The main thread at finalize (it reads symbol tables
 * and line tables: malloc, files).
 */
#include "coh_report_names.h"

#include <stdlib.h>
#include <string.h>

#include "base_log.h"
#include "coh_heap_sites.h"
#include "sys_lines.h"
#include "sys_symbols.h"

#define BLOCKS_PER_ITEM 8

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int coh_report_in_system(uintptr_t pc)
{
    dsm_sys_symbol_t sym;
    if (!pc)
        return 1;
    if (dsm_sys_symbol_find((const void *)pc, &sym) != 0)
        return 0;
    const char *b = base_name(sym.object);
    return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) ||
           !strncmp(b, "ld-linux", 8) || !strncmp(b, "libpthread", 10) ||
           !strncmp(b, "libgcc_s", 8);
}

/* Not a name clang makes for an outlined region body, a task entry or a
 * reduction helper (which follow, in the code, the function they came
 * from). */
static int written_by_user(const char *name)
{
    return name[0] != '.' && strncmp(name, "__omp_", 6) != 0 &&
           strncmp(name, "omp_outlined", 12) != 0;
}

/* The function holding pc, as the programmer wrote it. */
static int function_of(uintptr_t pc, dsm_sys_symbol_t *sym)
{
    if (dsm_sys_symbol_find((const void *)pc, sym) != 0)
        return -1;
    if (sym->function && !written_by_user(sym->name)) {
        dsm_sys_symbol_t outer;
        if (dsm_sys_symbol_preceding((const void *)pc, written_by_user,
                                     &outer) == 0)
            *sym = outer;
    }
    return 0;
}

void coh_report_where(const uintptr_t *ret, size_t n, int code_addresses,
                      char (*out)[COH_NAME_TEXT])
{
    uintptr_t *pcs = malloc((n ? n : 1) * sizeof *pcs);
    dsm_sys_line_t *lines = malloc((n ? n : 1) * sizeof *lines);
    if (!pcs || !lines)
        dsm_fatal("no memory for the sharing report");
    /* a return address follows its call: one byte back is the call */
    for (size_t i = 0; i < n; i++)
        pcs[i] = ret[i] && !code_addresses ? ret[i] - 1 : ret[i];
    dsm_sys_lines_find(pcs, n, lines);
    for (size_t i = 0; i < n; i++) {
        dsm_sys_symbol_t sym;
        int named = pcs[i] && function_of(pcs[i], &sym) == 0;
        if (lines[i].line && named)
            snprintf(out[i], COH_NAME_TEXT, "%s:%u (%s)", lines[i].file,
                     lines[i].line, sym.name);
        else if (lines[i].line)
            snprintf(out[i], COH_NAME_TEXT, "%s:%u", lines[i].file,
                     lines[i].line);
        else if (named)
            snprintf(out[i], COH_NAME_TEXT, "%s (%s)", sym.name,
                     base_name(sym.object));
        else
            snprintf(out[i], COH_NAME_TEXT, "0x%lx", (unsigned long)pcs[i]);
    }
    free(pcs);
    free(lines);
}

void *coh_report_names_reply(const coh_names_item_t *items, uint32_t count,
                             size_t *len)
{
    size_t cap = (size_t)count * BLOCKS_PER_ITEM, n = 0;
    coh_names_block_t *blocks = calloc(cap ? cap : 1, sizeof *blocks);
    uintptr_t *pcs = calloc(cap ? cap : 1, sizeof *pcs);
    if (!blocks || !pcs)
        dsm_fatal("no memory for the sharing report");
    for (uint32_t k = 0; k < count; k++) {
        uintptr_t end = 0;
        int found = 0;
        for (unsigned w = 0; w < 64 * COH_SHARING_MASK_WORDS &&
                             found < BLOCKS_PER_ITEM; w++) {
            if (!(items[k].hot[w / 64] & ((uint64_t)1 << (w % 64))))
                continue;
            uintptr_t addr = (uintptr_t)items[k].page_addr + 8u * w;
            coh_heap_site_t site;
            if (addr < end || coh_heap_describe(addr, &site) != 0)
                continue;
            end = site.size > UINTPTR_MAX - site.start ? UINTPTR_MAX
                                                       : site.start + site.size;
            coh_names_block_t *b = &blocks[n];
            b->item = k;
            b->start = site.start;
            b->size = site.size == SIZE_MAX ? 0 : site.size;
            b->runtime = !site.outside || coh_report_in_system(site.outside);
            pcs[n] = b->runtime ? site.inside : site.outside;
            n++;
            found++;
        }
    }
    char (*where)[COH_NAME_TEXT] = calloc(n ? n : 1, sizeof *where);
    if (!where)
        dsm_fatal("no memory for the sharing report");
    coh_report_where(pcs, n, 0, where);
    for (size_t i = 0; i < n; i++) {
        if (!pcs[i])
            snprintf(blocks[i].where, COH_NAME_TEXT, "an unknown place");
        else
            memcpy(blocks[i].where, where[i], COH_NAME_TEXT);
        blocks[i].where[COH_NAME_TEXT - 1] = '\0';
    }
    coh_msg_names_t hdr = {(uint32_t)n, 0};
    *len = sizeof hdr + n * sizeof *blocks;
    unsigned char *out = malloc(*len);
    if (!out)
        dsm_fatal("no memory for the sharing report");
    memcpy(out, &hdr, sizeof hdr);
    memcpy(out + sizeof hdr, blocks, n * sizeof *blocks);
    free(where);
    free(pcs);
    free(blocks);
    return out;
}
