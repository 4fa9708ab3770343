/*
 * sys_lines.c - file and line of code addresses from DWARF line tables.
 *
 * For each object that holds some of the addresses asked for, its file is
 * mapped, .debug_line is run (every unit's line-number program, whose rows
 * say "from this address on, this file and line"), and each address takes
 * the row that covers it.  .debug_line_str and .debug_str hold the names
 * that version 5 tables refer to.  Compressed sections and split DWARF are
 * not read (the addresses stay unknown).  Every read is bounds-checked: a
 * damaged table ends its own parse, never the process.
 *
 * Layer: sys.  See sys_lines.h for where it may be called from.
 */
#include "sys_lines.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- bounded reads ------------------------------------------------------ */

typedef struct reader {
    const unsigned char *p, *end;
    int bad;
} reader_t;

static uint64_t rd_bytes(reader_t *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n && i < 8; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static uint64_t rd_uleb(reader_t *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (r->bad || r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        unsigned char b = *r->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

static int64_t rd_sleb(reader_t *r)
{
    int64_t v = 0;
    unsigned shift = 0;
    unsigned char b;
    do {
        if (r->bad || r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        b = *r->p++;
        if (shift < 64)
            v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        v |= -((int64_t)1 << shift);
    return v;
}

static const char *rd_str(reader_t *r)
{
    const unsigned char *nul = r->bad ? NULL
                                      : memchr(r->p, 0, (size_t)(r->end - r->p));
    if (!nul) {
        r->bad = 1;
        return "";
    }
    const char *s = (const char *)r->p;
    r->p = nul + 1;
    return s;
}

typedef struct section {
    const unsigned char *data;
    size_t len;
} section_t;

/* A string at offset off of a string section, or NULL. */
static const char *str_at(const section_t *s, uint64_t off)
{
    if (!s->data || off >= s->len || !memchr(s->data + off, 0, s->len - off))
        return NULL;
    return (const char *)s->data + off;
}

/* ---- the queries of one object ------------------------------------------ */

typedef struct query {
    uintptr_t addr;         /* link-time address (pc minus the bias) */
    size_t index;           /* into the caller's arrays */
} query_t;

typedef struct object_lines {
    query_t *q;
    size_t nq;
    dsm_sys_line_t *out;
    size_t found;
    section_t line, line_str, str;
} object_lines_t;

typedef struct file_entry {
    const char *name;
    const char *dir;
} file_entry_t;

typedef struct unit {
    int version;
    int offset_size;
    int addr_size;
    unsigned min_inst;
    int line_base;
    unsigned line_range;
    unsigned opcode_base;
    const unsigned char *std_lengths;
    file_entry_t *files;
    size_t nfiles;
} unit_t;

static size_t lower_bound(const object_lines_t *o, uintptr_t addr)
{
    size_t lo = 0, hi = o->nq;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->q[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void set_name(dsm_sys_line_t *l, const file_entry_t *f)
{
    if (f->dir && f->dir[0] && f->name[0] != '/')
        snprintf(l->file, sizeof l->file, "%s/%s", f->dir, f->name);
    else
        snprintf(l->file, sizeof l->file, "%s", f->name);
}

/* Rows of file `file`, line `line` cover [lo, hi). */
static void cover(object_lines_t *o, const unit_t *u, uintptr_t lo,
                  uintptr_t hi, uint64_t file, uint64_t line)
{
    if (hi <= lo || line == 0)
        return;
    /* version 5 numbers files from 0, earlier versions from 1 */
    uint64_t fi = u->version >= 5 ? file : file - 1;
    if (fi >= u->nfiles)
        return;
    for (size_t k = lower_bound(o, lo); k < o->nq && o->q[k].addr < hi; k++) {
        dsm_sys_line_t *l = &o->out[o->q[k].index];
        if (l->line)
            continue;
        set_name(l, &u->files[fi]);
        l->line = (unsigned)line;
        o->found++;
    }
}

/* One attribute value of a version 5 directory or file entry: a string
 * (*s) or a number (*v). */
static void rd_form(reader_t *r, uint64_t form, const unit_t *u,
                    const object_lines_t *o, const char **s, uint64_t *v)
{
    *s = NULL;
    *v = 0;
    switch (form) {
    case 0x08: *s = rd_str(r); break;                          /* string */
    case 0x1f: *s = str_at(&o->line_str, rd_bytes(r, (size_t)u->offset_size)); break;
    case 0x0e: *s = str_at(&o->str, rd_bytes(r, (size_t)u->offset_size)); break;
    case 0x0f: *v = rd_uleb(r); break;                         /* udata */
    case 0x0b: *v = rd_bytes(r, 1); break;
    case 0x05: *v = rd_bytes(r, 2); break;
    case 0x06: *v = rd_bytes(r, 4); break;
    case 0x07: *v = rd_bytes(r, 8); break;
    case 0x1e: rd_bytes(r, 16); break;                         /* data16 */
    case 0x09: {                                               /* block */
        uint64_t n = rd_uleb(r);
        if (n > (uint64_t)(r->end - r->p))
            r->bad = 1;
        else
            r->p += n;
        break;
    }
    default: r->bad = 1; break;
    }
}

/* Version 5 entry list: format, count, entries; fills names (and dir
 * indices) of up to count entries into a new array. */
static file_entry_t *rd_entries_v5(reader_t *r, const unit_t *u,
                                   const object_lines_t *o, size_t *count,
                                   uint64_t **dir_index)
{
    unsigned nformat = (unsigned)rd_bytes(r, 1);
    uint64_t format[2 * 16];
    if (nformat > 16) {
        r->bad = 1;
        return NULL;
    }
    for (unsigned i = 0; i < nformat; i++) {
        format[2 * i] = rd_uleb(r);
        format[2 * i + 1] = rd_uleb(r);
    }
    uint64_t n = rd_uleb(r);
    if (r->bad || n > (uint64_t)(r->end - r->p))
        return NULL;
    file_entry_t *e = calloc(n ? n : 1, sizeof *e);
    uint64_t *di = calloc(n ? n : 1, sizeof *di);
    if (!e || !di) {
        free(e);
        free(di);
        r->bad = 1;
        return NULL;
    }
    for (uint64_t k = 0; k < n && !r->bad; k++) {
        e[k].name = "";
        for (unsigned i = 0; i < nformat; i++) {
            const char *s;
            uint64_t v;
            rd_form(r, format[2 * i + 1], u, o, &s, &v);
            if (format[2 * i] == 1 && s)            /* DW_LNCT_path */
                e[k].name = s;
            else if (format[2 * i] == 2)            /* directory_index */
                di[k] = v;
        }
    }
    *count = (size_t)n;
    *dir_index = di;
    return e;
}

static int read_header_v5(reader_t *r, unit_t *u, const object_lines_t *o)
{
    size_t ndirs = 0, nfiles = 0;
    uint64_t *unused = NULL, *dir_of = NULL;
    file_entry_t *dirs = rd_entries_v5(r, u, o, &ndirs, &unused);
    free(unused);
    file_entry_t *files = dirs ? rd_entries_v5(r, u, o, &nfiles, &dir_of)
                               : NULL;
    if (files) {
        /* directory 0 is the compilation's own: names stay as written */
        for (size_t k = 0; k < nfiles; k++)
            files[k].dir = dir_of[k] && dir_of[k] < ndirs
                               ? dirs[dir_of[k]].name : NULL;
    }
    free(dir_of);
    free(dirs);
    u->files = files;
    u->nfiles = nfiles;
    return files && !r->bad ? 0 : -1;
}

static int read_header_v4(reader_t *r, unit_t *u)
{
    const char *dirs[256];
    size_t ndirs = 0, cap = 16, nfiles = 0;
    for (;;) {
        const char *d = rd_str(r);
        if (r->bad || !d[0])
            break;
        if (ndirs < 256)
            dirs[ndirs++] = d;
    }
    file_entry_t *files = malloc(cap * sizeof *files);
    while (files && !r->bad) {
        const char *name = rd_str(r);
        if (r->bad || !name[0])
            break;
        uint64_t d = rd_uleb(r);
        rd_uleb(r);     /* modification time */
        rd_uleb(r);     /* length */
        if (nfiles == cap) {
            file_entry_t *more = realloc(files, 2 * cap * sizeof *files);
            if (!more) {
                r->bad = 1;
                break;
            }
            files = more;
            cap *= 2;
        }
        files[nfiles].name = name;
        files[nfiles].dir = d && d <= ndirs ? dirs[d - 1] : NULL;
        nfiles++;
    }
    u->files = files;
    u->nfiles = nfiles;
    return files && !r->bad ? 0 : -1;
}

/* Run one unit's line program (r at its opcodes, up to r->end). */
static void run_program(reader_t *r, const unit_t *u, object_lines_t *o)
{
    uint64_t addr = 0, file = 1, line = 1;
    uint64_t prev_addr = 0, prev_file = 0, prev_line = 0;
    int have_prev = 0;
#define EMIT()                                                                \
    do {                                                                      \
        if (have_prev && prev_addr <= addr)                                   \
            cover(o, u, (uintptr_t)prev_addr, (uintptr_t)addr, prev_file,     \
                  prev_line);                                                 \
        prev_addr = addr, prev_file = file, prev_line = line, have_prev = 1;  \
    } while (0)
    while (!r->bad && r->p < r->end) {
        unsigned op = (unsigned)rd_bytes(r, 1);
        if (op >= u->opcode_base) {
            unsigned adj = op - u->opcode_base;
            addr += (uint64_t)(adj / u->line_range) * u->min_inst;
            line += (uint64_t)(int64_t)(u->line_base + (int)(adj % u->line_range));
            EMIT();
        } else if (op == 0) {
            uint64_t len = rd_uleb(r);
            if (r->bad || len == 0 || len > (uint64_t)(r->end - r->p)) {
                r->bad = 1;
                break;
            }
            const unsigned char *next = r->p + len;
            unsigned sub = (unsigned)rd_bytes(r, 1);
            if (sub == 1) {                         /* end_sequence */
                EMIT();
                have_prev = 0;
                addr = 0, file = 1, line = 1;
            } else if (sub == 2) {                  /* set_address */
                addr = rd_bytes(r, len - 1 < 8 ? (size_t)(len - 1) : 8);
            }
            r->p = next;
        } else {
            switch (op) {
            case 1: EMIT(); break;                              /* copy */
            case 2: addr += rd_uleb(r) * u->min_inst; break;    /* advance_pc */
            case 3: line += (uint64_t)rd_sleb(r); break;        /* advance_line */
            case 4: file = rd_uleb(r); break;                   /* set_file */
            case 8:                                             /* const_add_pc */
                addr += (uint64_t)((255 - u->opcode_base) / u->line_range) *
                        u->min_inst;
                break;
            case 9: addr += rd_bytes(r, 2); break;              /* fixed_advance_pc */
            default:    /* operands as the header says: skip them */
                for (unsigned k = 0; k < u->std_lengths[op - 1]; k++)
                    rd_uleb(r);
                break;
            }
        }
    }
#undef EMIT
}

/* Every unit of .debug_line. */
static void run_units(object_lines_t *o)
{
    reader_t all = {o->line.data, o->line.data + o->line.len, 0};
    while (!all.bad && all.p < all.end) {
        unit_t u = {0};
        uint64_t len = rd_bytes(&all, 4);
        u.offset_size = 4;
        if (len == 0xffffffffu) {
            len = rd_bytes(&all, 8);
            u.offset_size = 8;
        }
        if (all.bad || len > (uint64_t)(all.end - all.p))
            return;
        reader_t r = {all.p, all.p + len, 0};
        all.p += len;
        u.version = (int)rd_bytes(&r, 2);
        if (u.version < 2 || u.version > 5)
            continue;
        u.addr_size = 8;
        if (u.version >= 5) {
            u.addr_size = (int)rd_bytes(&r, 1);
            rd_bytes(&r, 1);                     /* segment selector size */
        }
        uint64_t header_len = rd_bytes(&r, (size_t)u.offset_size);
        if (r.bad || header_len > (uint64_t)(r.end - r.p))
            continue;
        const unsigned char *program = r.p + header_len;
        u.min_inst = (unsigned)rd_bytes(&r, 1);
        if (u.version >= 4)
            rd_bytes(&r, 1);                     /* max ops per instruction */
        rd_bytes(&r, 1);                         /* default is_stmt */
        u.line_base = (int)(signed char)rd_bytes(&r, 1);
        u.line_range = (unsigned)rd_bytes(&r, 1);
        u.opcode_base = (unsigned)rd_bytes(&r, 1);
        if (r.bad || u.line_range == 0 || u.opcode_base == 0 ||
            u.opcode_base - 1u > (size_t)(r.end - r.p))
            continue;
        u.std_lengths = r.p;
        r.p += u.opcode_base - 1;
        int ok = u.version >= 5 ? read_header_v5(&r, &u, o)
                                : read_header_v4(&r, &u);
        if (ok == 0) {
            reader_t prog = {program, r.end, 0};
            run_program(&prog, &u, o);
        }
        free(u.files);
    }
}

/* ---- objects -------------------------------------------------------------- */

static const ElfW(Shdr) *section(const unsigned char *file, size_t len,
                                 const char *name)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)file;
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_shoff == 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
        eh->e_shoff > len ||
        (len - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum ||
        eh->e_shstrndx >= eh->e_shnum)
        return NULL;
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(file + eh->e_shoff);
    const ElfW(Shdr) *names = &sh[eh->e_shstrndx];
    if (names->sh_offset > len || names->sh_size > len - names->sh_offset)
        return NULL;
    section_t strings = {file + names->sh_offset, names->sh_size};
    for (int i = 0; i < eh->e_shnum; i++) {
        const char *n = str_at(&strings, sh[i].sh_name);
        if (n && strcmp(n, name) == 0 && sh[i].sh_type != SHT_NOBITS &&
            !(sh[i].sh_flags & SHF_COMPRESSED) && sh[i].sh_offset <= len &&
            sh[i].sh_size <= len - sh[i].sh_offset)
            return &sh[i];
    }
    return NULL;
}

static section_t section_data(const unsigned char *file, size_t len,
                              const char *name)
{
    const ElfW(Shdr) *s = section(file, len, name);
    section_t out = {NULL, 0};
    if (s) {
        out.data = file + s->sh_offset;
        out.len = s->sh_size;
    }
    return out;
}

static int query_order(const void *a, const void *b)
{
    const query_t *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

typedef struct object_of {
    uintptr_t pc;
    int found, executable;
    uintptr_t bias;
    const char *name;
} object_of_t;

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    object_of_t *q = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->pc >= lo && q->pc - lo < ph->p_memsz) {
            q->found = 1;
            q->bias = info->dlpi_addr;
            q->executable = !info->dlpi_name || !info->dlpi_name[0];
            q->name = info->dlpi_name;
            return 1;
        }
    }
    return 0;
}

/* The addresses (indices todo[0..n)) that lie in the object of pc0. */
static void lines_of_object(const uintptr_t *pcs, size_t *todo, size_t n,
                            const object_of_t *obj, dsm_sys_line_t *out,
                            size_t *found)
{
    object_lines_t o = {0};
    o.q = malloc(n * sizeof *o.q);
    if (!o.q)
        return;
    for (size_t k = 0; k < n; k++) {
        o.q[k].addr = pcs[todo[k]] - obj->bias;
        o.q[k].index = todo[k];
    }
    o.nq = n;
    o.out = out;
    qsort(o.q, o.nq, sizeof *o.q, query_order);
    int fd = open(obj->executable ? "/proc/self/exe" : obj->name,
                  O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
        size_t len = (size_t)st.st_size;
        unsigned char *file = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (file != MAP_FAILED) {
            o.line = section_data(file, len, ".debug_line");
            o.line_str = section_data(file, len, ".debug_line_str");
            o.str = section_data(file, len, ".debug_str");
            if (o.line.data)
                run_units(&o);
            munmap(file, len);
        }
    }
    if (fd >= 0)
        close(fd);
    *found += o.found;
    free(o.q);
}

size_t dsm_sys_lines_find(const uintptr_t *pcs, size_t n, dsm_sys_line_t *out)
{
    for (size_t i = 0; i < n; i++) {
        out[i].file[0] = '\0';
        out[i].line = 0;
    }
    size_t *todo = malloc((n ? n : 1) * sizeof *todo);
    char *done = calloc(n ? n : 1, 1);
    size_t found = 0;
    if (!todo || !done) {
        free(todo);
        free(done);
        return 0;
    }
    /* one object at a time: the first address not yet placed picks it */
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        object_of_t obj = {.pc = pcs[i]};
        dl_iterate_phdr(find_object, &obj);
        if (!obj.found) {
            done[i] = 1;
            continue;
        }
        size_t m = 0;
        for (size_t k = i; k < n; k++) {
            if (done[k])
                continue;
            object_of_t other = {.pc = pcs[k]};
            dl_iterate_phdr(find_object, &other);
            if (other.found && other.bias == obj.bias &&
                other.executable == obj.executable) {
                todo[m++] = k;
                done[k] = 1;
            }
        }
        lines_of_object(pcs, todo, m, &obj, out, &found);
    }
    free(todo);
    free(done);
    return found;
}
