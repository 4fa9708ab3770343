/*
 * sys_symbols.c - names of addresses from the ELF symbol tables of the
 * loaded objects' files.
 *
 * Layer: sys.  See sys_symbols.h for where it may be called from: libc
 * only (no logging, no runtime call), so a fatal path can use it.
 */
#include "sys_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* How far back from the last symbol starting at or before an address a
 * look-up searches for one whose extent holds it (symbols may nest: an
 * alias, a local label inside a function). */
#define NEST_SEARCH 64

#if UINTPTR_MAX > 0xffffffffu
#define SYM_TYPE ELF64_ST_TYPE
#define SYM_BIND ELF64_ST_BIND
#else
#define SYM_TYPE ELF32_ST_TYPE
#define SYM_BIND ELF32_ST_BIND
#endif

typedef struct sym_entry {
    uintptr_t start;
    size_t size;
    const char *name;
    unsigned char function;
    unsigned char rank;      /* among symbols at one address: global 2,
                                weak 1, local 0; the highest is preferred */
} sym_entry_t;

/* One loaded object's table. */
typedef struct sym_table {
    struct sym_table *next;
    uintptr_t bias;          /* dlpi_addr */
    char *object;            /* path, for dsm_sys_symbol_t.object */
    sym_entry_t *entries;    /* sorted by start, then rank */
    size_t count;
} sym_table_t;

static pthread_mutex_t tables_mutex = PTHREAD_MUTEX_INITIALIZER;
static sym_table_t *tables;

/* ---- which object holds an address ------------------------------------ */

typedef struct object_query {
    uintptr_t addr;
    int found;
    int executable;          /* the program itself (no dlpi_name) */
    uintptr_t bias;
    char path[4096];
} object_query_t;

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
    object_query_t *q = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (q->addr < lo || q->addr - lo >= ph->p_memsz)
            continue;
        q->found = 1;
        q->bias = info->dlpi_addr;
        const char *name = info->dlpi_name;
        q->executable = !name || !*name;
        if (q->executable) {
            /* the executable: its own path, for messages */
            ssize_t n = readlink("/proc/self/exe", q->path,
                                 sizeof q->path - 1);
            q->path[n > 0 ? n : 0] = '\0';
        } else {
            size_t n = strlen(name);
            if (n >= sizeof q->path)
                n = sizeof q->path - 1;
            memcpy(q->path, name, n);
            q->path[n] = '\0';
        }
        return 1;
    }
    return 0;
}

/* ---- loading a table ----------------------------------------------------- */

static int entry_order(const void *a, const void *b)
{
    const sym_entry_t *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (int)x->rank - (int)y->rank;
}

/* The symbol section to read: .symtab when the file has one, else
 * .dynsym.  NULL when neither is usable. */
static const ElfW(Shdr) *symbol_section(const unsigned char *file,
                                        size_t len)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)file;
    if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
        eh->e_shoff > len ||
        (len - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum)
        return NULL;
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(file + eh->e_shoff);
    const ElfW(Shdr) *dynsym = NULL;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type == SHT_SYMTAB)
            return &sh[i];
        if (sh[i].sh_type == SHT_DYNSYM && !dynsym)
            dynsym = &sh[i];
    }
    return dynsym;
}

/* Fill t's entries from the mapped file; 0 on success. */
static int read_symbols(sym_table_t *t, const unsigned char *file,
                        size_t len)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)file;
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64
                                                      : ELFCLASS32))
        return -1;
    const ElfW(Shdr) *symsec = symbol_section(file, len);
    if (!symsec || symsec->sh_entsize != sizeof(ElfW(Sym)))
        return -1;
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(file + eh->e_shoff);
    if (symsec->sh_link >= eh->e_shnum)
        return -1;
    const ElfW(Shdr) *strsec = &sh[symsec->sh_link];
    if (symsec->sh_offset > len || symsec->sh_size > len - symsec->sh_offset ||
        strsec->sh_offset > len || strsec->sh_size > len - strsec->sh_offset ||
        strsec->sh_size == 0)
        return -1;
    const ElfW(Sym) *syms = (const ElfW(Sym) *)(file + symsec->sh_offset);
    size_t nsyms = symsec->sh_size / sizeof(ElfW(Sym));
    const char *strings = (const char *)(file + strsec->sh_offset);
    size_t strings_len = strsec->sh_size;
    if (strings[strings_len - 1] != '\0')
        return -1;
    sym_entry_t *entries = malloc((nsyms ? nsyms : 1) * sizeof *entries);
    if (!entries)
        return -1;
    size_t count = 0;
    for (size_t i = 0; i < nsyms; i++) {
        const ElfW(Sym) *s = &syms[i];
        int type = SYM_TYPE(s->st_info);
        int bind = SYM_BIND(s->st_info);
        if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT &&
            type != STT_COMMON)
            continue;
        if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS ||
            s->st_value == 0 || s->st_name == 0 ||
            s->st_name >= strings_len)
            continue;
        sym_entry_t *e = &entries[count++];
        e->start = t->bias + s->st_value;
        e->size = s->st_size;
        e->name = strings + s->st_name;
        e->function = type == STT_FUNC || type == STT_GNU_IFUNC;
        e->rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
    }
    qsort(entries, count, sizeof *entries, entry_order);
    t->entries = entries;
    t->count = count;
    return 0;
}

/* Map the file and read its table.  The mapping is kept: the names point
 * into it.  A file that cannot be read gives an empty table, so that it is
 * not tried again. */
static sym_table_t *load_table(const object_query_t *q)
{
    sym_table_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->bias = q->bias;
    t->object = strdup(q->path);
    if (!t->object) {
        free(t);
        return NULL;
    }
    /* the executable through /proc/self/exe: right even if its file was
     * moved or replaced since the start */
    int fd = open(q->executable ? "/proc/self/exe" : q->path,
                  O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
        size_t len = (size_t)st.st_size;
        void *file = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (file != MAP_FAILED && read_symbols(t, file, len) != 0)
            munmap(file, len);
    }
    if (fd >= 0)
        close(fd);
    return t;
}

/* The table of the object holding addr, loaded on first use; NULL when
 * addr is in no loaded object.  tables_mutex held. */
static const sym_table_t *table_for(uintptr_t addr)
{
    object_query_t *q = malloc(sizeof *q);
    if (!q)
        return NULL;
    memset(q, 0, offsetof(object_query_t, path));
    q->path[0] = '\0';
    q->addr = addr;
    dl_iterate_phdr(find_object, q);
    sym_table_t *t = NULL;
    if (q->found) {
        for (t = tables; t; t = t->next)
            if (t->bias == q->bias && strcmp(t->object, q->path) == 0)
                break;
        if (!t && (t = load_table(q)) != NULL) {
            t->next = tables;
            tables = t;
        }
    }
    free(q);
    return t;
}

/* Index of the last entry starting at or before addr, or -1. */
static long last_at_or_before(const sym_table_t *t, uintptr_t addr)
{
    size_t lo = 0, hi = t->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->entries[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

static void fill(const sym_table_t *t, const sym_entry_t *e,
                 dsm_sys_symbol_t *out)
{
    out->name = e->name;
    out->object = t->object;
    out->start = e->start;
    out->size = e->size;
    out->function = e->function;
}

int dsm_sys_symbol_find(const void *addr, dsm_sys_symbol_t *out)
{
    uintptr_t a = (uintptr_t)addr;
    int found = -1;
    pthread_mutex_lock(&tables_mutex);
    const sym_table_t *t = table_for(a);
    if (t) {
        long i = last_at_or_before(t, a);
        /* the nearest start first; at one start, the best-ranked (last) */
        for (long n = 0; i >= 0 && n < NEST_SEARCH; i--, n++) {
            const sym_entry_t *e = &t->entries[i];
            if (a - e->start < e->size || (e->size == 0 && a == e->start)) {
                fill(t, e, out);
                found = 0;
                break;
            }
        }
    }
    pthread_mutex_unlock(&tables_mutex);
    return found;
}

int dsm_sys_symbol_preceding(const void *addr,
                             int (*accept)(const char *name),
                             dsm_sys_symbol_t *out)
{
    uintptr_t a = (uintptr_t)addr;
    int found = -1;
    pthread_mutex_lock(&tables_mutex);
    const sym_table_t *t = table_for(a);
    if (t) {
        for (long i = last_at_or_before(t, a); i >= 0; i--) {
            const sym_entry_t *e = &t->entries[i];
            if (e->function && (!accept || accept(e->name))) {
                fill(t, e, out);
                found = 0;
                break;
            }
        }
    }
    pthread_mutex_unlock(&tables_mutex);
    return found;
}
