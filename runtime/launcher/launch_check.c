/*
 * launch_check.c - is the program a dsmomp program?  Read from its ELF
 * dynamic section: the libraries it needs (DT_NEEDED).  See
 * launch_check.h.
 *
 * Layer: launcher.  Entry point: dsm_launch_check_program.  dsmrun's
 * start-up, before any node exists.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch_check.h"

typedef enum program_kind {
    PROGRAM_NOT_ELF,         /* a script, or something we cannot read */
    PROGRAM_JOINS,           /* needs libdsmomp or UCX */
    PROGRAM_ALONE,           /* an ELF program that needs neither */
} program_kind_t;

static int names_runtime(const char *needed)
{
    return strncmp(needed, "libdsmomp.so", 12) == 0 ||
           strncmp(needed, "libucp.so", 9) == 0;
}

/* The DT_NEEDED entries of a 64-bit ELF image of len bytes. */
static program_kind_t classify(const unsigned char *file, size_t len)
{
    const Elf64_Ehdr *eh = (const void *)file;
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return PROGRAM_NOT_ELF;
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > len ||
        (len - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
        return PROGRAM_NOT_ELF;          /* not ours to judge */
    const Elf64_Shdr *sh = (const void *)(file + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNAMIC || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset ||
            strs->sh_offset > len || strs->sh_size > len - strs->sh_offset)
            return PROGRAM_NOT_ELF;
        const Elf64_Dyn *dyn = (const void *)(file + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof *dyn;
        const char *names = (const char *)(file + strs->sh_offset);
        for (size_t k = 0; k < n && dyn[k].d_tag != DT_NULL; k++)
            if (dyn[k].d_tag == DT_NEEDED &&
                dyn[k].d_un.d_val < strs->sh_size &&
                memchr(names + dyn[k].d_un.d_val, '\0',
                       strs->sh_size - dyn[k].d_un.d_val) &&
                names_runtime(names + dyn[k].d_un.d_val))
                return PROGRAM_JOINS;
    }
    return PROGRAM_ALONE;
}

dsm_status_t dsm_launch_check_program(const char *path, int nodes)
{
    const char *any = getenv("DSMRUN_ANY_PROGRAM");
    if (nodes < 2 || (any && strcmp(any, "1") == 0))
        return DSM_OK;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return DSM_OK;                   /* exec will report it */
    if (fstat(fd, &st) != 0 || st.st_size == 0) {
        close(fd);
        return DSM_OK;
    }
    size_t len = (size_t)st.st_size;
    void *file = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED)
        return DSM_OK;
    program_kind_t kind = classify(file, len);
    munmap(file, len);
    if (kind != PROGRAM_ALONE)
        return DSM_OK;
    fprintf(stderr,
            "dsmrun: %s is not linked against libdsmomp, so its %d nodes "
            "would run as %d separate copies; build it with dsmcc, dsmgcc "
            "or dsmfort (DSMRUN_ANY_PROGRAM=1 starts it anyway)\n",
            path, nodes, nodes);
    return DSM_ERR_INVALID;
}
