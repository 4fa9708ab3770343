/*
 * fj_tls.c - threadprivate variables in thread-local storage (clang's
 * default) for the members of a team on other nodes.
 *
 * copyin and copyprivate hand the other threads pointers to the source
 * thread's own variables: the master's for copyin (a microtask argument;
 * each member copies through it when its own address differs), the
 * single thread's for copyprivate (its list, read by the copy function).
 * Those are addresses in that thread's static TLS block, in its node's
 * private memory: on another node they name nothing, or the same offset
 * in some thread's block there.  So for members on other nodes the
 * runtime substitutes the same variable in a *snapshot*: a per-thread
 * block of the sharable heap laid out like the executable's TLS segment
 * (same offsets), homed on the source thread's node, into which the
 * source thread copies the variable before the release that precedes the
 * copy (the fork's hand-off, the single's team barrier).  Only the pages
 * another node actually reads travel.
 *
 * How much to copy: the ABI gives pointers, not sizes.  The executable's
 * symbol table (.symtab, read once from /proc/self/exe) has every TLS
 * variable's offset and size, so the snapshot takes exactly the variable;
 * without one (a stripped program) it takes everything from the pointer to
 * the end of the block.  The copy goes page by page and skips pages that
 * already hold the same bytes, so an unchanged variable writes nothing and
 * makes no write notice: a 1 MiB array costs one comparison per fork, and
 * a copy only of the pages that changed.
 *
 * The executable's block is recognised from dl_iterate_phdr (its first
 * module: dlpi_tls_data is the calling thread's instance, PT_TLS's
 * p_memsz its size).  Variables of shared libraries are not handled.
 *
 * Also: the bytes of static TLS of every module, which glibc places inside
 * each thread's stack (fj_pool.c sizes stacks with it).
 *
 * gcc's ABI passes such addresses inside blocks of data instead of as
 * arguments; its shim finds them there and uses fj_tls_snapshot (the
 * source thread) and fj_tls_restore (another node's thread whose own
 * block is at that address) directly.
 *
 * Layer: forkjoin.  fj_tls_fork_args: node 0's master at a fork.
 * fj_tls_list: the single thread of a copyprivate.  fj_tls_snapshot,
 * fj_tls_restore: members of a team.  fj_tls_static_bytes: any thread.
 * Never from signal handlers.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base_log.h"
#include "fj_internal.h"
#include "sys_region.h"

/* Room glibc needs besides the modules' blocks: its TCB, the surplus for
 * libraries loaded later, alignment. */
#define STATIC_TLS_SLACK ((size_t)64 << 10)

typedef struct tls_var {
    uint64_t off, size;
} tls_var_t;

static struct {
    pthread_once_t once;
    size_t exe_len;          /* the executable's TLS segment, bytes */
    size_t static_bytes;     /* every loaded module's, rounded */
    pthread_once_t syms_once;
    tls_var_t *vars;         /* sorted by offset */
    size_t nvars;
} tls = {PTHREAD_ONCE_INIT, 0, 0, PTHREAD_ONCE_INIT, NULL, 0};

static int scan_module(struct dl_phdr_info *info, size_t size, void *data)
{
    int *first = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_TLS)
            continue;
        size_t align = ph->p_align ? ph->p_align : 1;
        tls.static_bytes += (ph->p_memsz + align - 1) / align * align;
        if (*first)
            tls.exe_len = ph->p_memsz;
    }
    *first = 0;
    return 0;
}

static void scan_modules(void)
{
    int first = 1;     /* dl_iterate_phdr reports the executable first */
    dl_iterate_phdr(scan_module, &first);
    tls.static_bytes += STATIC_TLS_SLACK;
}

size_t fj_tls_static_bytes(void)
{
    pthread_once(&tls.once, scan_modules);
    return tls.static_bytes;
}

static int var_order(const void *a, const void *b)
{
    const tls_var_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The TLS variables of the executable's symbol table (st_value is the
 * offset in the TLS segment); none when it has no .symtab. */
static void read_symbols(void)
{
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(ElfW(Ehdr))) {
        close(fd);
        return;
    }
    size_t len = (size_t)st.st_size;
    const unsigned char *file = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd,
                                     0);
    close(fd);
    if (file == MAP_FAILED)
        return;
    const ElfW(Ehdr) *eh = (const void *)file;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > len ||
        (len - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum)
        goto out;
    const ElfW(Shdr) *sh = (const void *)(file + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB ||
            sh[i].sh_entsize != sizeof(ElfW(Sym)) || sh[i].sh_offset > len ||
            sh[i].sh_size > len - sh[i].sh_offset)
            continue;
        const ElfW(Sym) *sym = (const void *)(file + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof *sym, count = 0;
        for (size_t k = 0; k < n; k++)
            count += ELF64_ST_TYPE(sym[k].st_info) == STT_TLS;
        tls_var_t *vars = count ? malloc(count * sizeof *vars) : NULL;
        if (!vars)
            break;
        size_t nvars = 0;
        for (size_t k = 0; k < n; k++)
            if (ELF64_ST_TYPE(sym[k].st_info) == STT_TLS &&
                sym[k].st_shndx != SHN_UNDEF && sym[k].st_size > 0 &&
                sym[k].st_value < tls.exe_len &&
                sym[k].st_size <= tls.exe_len - sym[k].st_value)
                vars[nvars++] = (tls_var_t){sym[k].st_value, sym[k].st_size};
        qsort(vars, nvars, sizeof *vars, var_order);
        tls.vars = vars;
        tls.nvars = nvars;
        break;
    }
out:
    munmap((void *)file, len);
}

/* End (offset) of the variable that starts at off: the symbol's end, or
 * the end of the block when no symbol says. */
static size_t var_end(size_t off)
{
    pthread_once(&tls.syms_once, read_symbols);
    size_t lo = 0, hi = tls.nvars;         /* first var with offset > off */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tls.vars[mid].off <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && off < tls.vars[lo - 1].off + tls.vars[lo - 1].size)
        return tls.vars[lo - 1].off + tls.vars[lo - 1].size;
    return tls.exe_len;
}

static int find_exe_block(struct dl_phdr_info *info, size_t size, void *out)
{
    *(uintptr_t *)out = (uintptr_t)info->dlpi_tls_data;
    return 1;          /* the executable comes first: stop there */
}

/* Is p in the calling thread's block (looked up once per thread)? */
static int in_block(fj_thread_t *self, uintptr_t p)
{
    if (!self->tls_block)
        dl_iterate_phdr(find_exe_block, &self->tls_block);
    return self->tls_block && p >= self->tls_block &&
           p - self->tls_block < tls.exe_len;
}

/* Copy len bytes to the snapshot, page by page, skipping equal pages. */
static void copy_changed(unsigned char *dst, const unsigned char *src,
                         size_t len)
{
    while (len > 0) {
        size_t chunk = DSM_PAGE_SIZE - ((uintptr_t)dst & (DSM_PAGE_SIZE - 1));
        if (chunk > len)
            chunk = len;
        if (memcmp(dst, src, chunk) != 0)
            memcpy(dst, src, chunk);
        dst += chunk;
        src += chunk;
        len -= chunk;
    }
}

/* The variable at p (in the thread's block) in its snapshot, brought up
 * to date. */
static void *publish(fj_thread_t *self, uintptr_t p)
{
    if (!self->tls_snapshot) {
        size_t bytes = (tls.exe_len + DSM_PAGE_SIZE - 1) & ~(DSM_PAGE_SIZE - 1);
        self->tls_snapshot = dsm_aligned_alloc(DSM_PAGE_SIZE, bytes);
        if (!self->tls_snapshot)
            dsm_fatal("out of sharable memory for a %zu-byte snapshot of "
                      "threadprivate variables (copyin, copyprivate)", bytes);
    }
    size_t off = p - self->tls_block;
    copy_changed(self->tls_snapshot + off, (const unsigned char *)p,
                 var_end(off) - off);
    return self->tls_snapshot + off;
}

int fj_tls_fork_args(fj_thread_t *self, uint64_t *args, int argc,
                     const char *where)
{
    pthread_once(&tls.once, scan_modules);
    if (tls.exe_len == 0)
        return 0;
    int replaced = 0;
    for (int i = 0; i < argc; i++)
        if (in_block(self, (uintptr_t)args[i])) {
            args[i] = (uint64_t)(uintptr_t)publish(self, (uintptr_t)args[i]);
            replaced++;
        }
    if (replaced)
        dsm_log(DSM_LOG_DEBUG, "parallel region at %s: %d threadprivate "
                "variable(s) for copyin snapshotted", where, replaced);
    return replaced;
}

void *fj_tls_list(fj_thread_t *self, void *list, size_t list_bytes)
{
    void **in = list;
    size_t n = list_bytes / sizeof *in, i = 0;
    while (i < n && dsm_is_sharable(in[i]))
        i++;
    if (i == n)
        return list;
    pthread_once(&tls.once, scan_modules);
    if (self->tls_list_cap < n) {
        dsm_free(self->tls_list);
        self->tls_list = dsm_malloc(n * sizeof *in);
        if (!self->tls_list)
            dsm_fatal("out of sharable memory for a copyprivate list");
        self->tls_list_cap = n;
    }
    for (i = 0; i < n; i++) {
        uintptr_t p = (uintptr_t)in[i];
        if (dsm_is_sharable(in[i]))
            self->tls_list[i] = in[i];
        else if (in_block(self, p))
            self->tls_list[i] = publish(self, p);
        else
            dsm_fatal("copyprivate of a variable at %p that other nodes "
                      "cannot reach: neither sharable nor a threadprivate "
                      "variable of the program (one of a shared library?)",
                      in[i]);
    }
    return self->tls_list;
}

void *fj_tls_snapshot(const void *p)
{
    fj_thread_t *self = fj_self();
    pthread_once(&tls.once, scan_modules);
    if (tls.exe_len == 0 || !in_block(self, (uintptr_t)p))
        return NULL;
    return publish(self, (uintptr_t)p);
}

int fj_tls_restore(void *p, const void *snapshot)
{
    fj_thread_t *self = fj_self();
    pthread_once(&tls.once, scan_modules);
    if (tls.exe_len == 0 || !in_block(self, (uintptr_t)p))
        return 0;
    size_t off = (uintptr_t)p - self->tls_block;
    memcpy(p, snapshot, var_end(off) - off);
    return 1;
}
