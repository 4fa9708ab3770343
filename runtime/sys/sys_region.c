/*
 * sys_region.c - fixed-address application view and runtime view of the
 * sharable region, both mappings of one memfd.
 * Layer: sys.  See sys_region.h for the calling rules.
 */
#include "sys_region.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base_log.h"
#include "sys_dump.h"

/* The application windows, for dsm_sys_sharable: appended at start-up,
 * read by any thread (the count is published after its entry). */
#define MAX_SHARABLE 64
static struct {
    uintptr_t lo, hi;
} sharable[MAX_SHARABLE];
static int nsharable;

static void note_sharable(uintptr_t base, size_t len)
{
    int n = __atomic_load_n(&nsharable, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++)
        if (sharable[i].lo == base && sharable[i].hi == base + len)
            return;   /* mapped again (a test's second start) */
    if (n == MAX_SHARABLE)
        dsm_fatal("more than %d sharable windows", MAX_SHARABLE);
    sharable[n].lo = base;
    sharable[n].hi = base + len;
    __atomic_store_n(&nsharable, n + 1, __ATOMIC_RELEASE);
}

int dsm_sys_sharable(const void *addr, size_t len)
{
    uintptr_t lo = (uintptr_t)addr, hi = lo + (len ? len : 1);
    int n = __atomic_load_n(&nsharable, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++)
        if (lo < sharable[i].hi && hi > sharable[i].lo)
            return 1;
    return 0;
}

int dsm_sys_find_overlap(uintptr_t lo, uintptr_t hi, uintptr_t *map_lo,
                         uintptr_t *map_hi, char *name, size_t namelen)
{
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps)
        return 0;
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps)) {
        uintptr_t a, b;
        int pos = 0;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %*s %*s %*s%n", &a, &b,
                   &pos) < 2)
            continue;
        if (a < hi && lo < b) {
            const char *p = line + pos;
            while (*p == ' ')
                p++;
            snprintf(name, namelen, "%s", *p && *p != '\n' ? p : "anonymous");
            name[strcspn(name, "\n")] = '\0';
            *map_lo = a;
            *map_hi = b;
            found = 1;
        }
    }
    fclose(maps);
    return found;
}

static int range_valid(uintptr_t base, size_t len)
{
    return len && !(len % DSM_PAGE_SIZE) && !(base % DSM_PAGE_SIZE) &&
           base + len > base;
}

dsm_status_t dsm_sys_region_create(size_t size, dsm_region_t *out)
{
    if (!range_valid(0, size)) {
        dsm_log(DSM_LOG_ERROR, "sharable space of %zu bytes: the size must "
                "be a non-zero multiple of %zu", size, DSM_PAGE_SIZE);
        return DSM_ERR_INVALID;
    }
    int fd = memfd_create("dsm-region", MFD_CLOEXEC);
    if (fd < 0) {
        dsm_log(DSM_LOG_ERROR, "memfd_create: %s", strerror(errno));
        return DSM_ERR_IO;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        dsm_log(DSM_LOG_ERROR, "sizing the sharable space to %zu bytes: %s",
                size, strerror(errno));
        close(fd);
        return DSM_ERR_NOMEM;
    }
    void *rt = mmap(NULL, size, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (rt == MAP_FAILED) {
        dsm_log(DSM_LOG_ERROR, "mapping the runtime view (%zu bytes): %s",
                size, strerror(errno));
        close(fd);
        return DSM_ERR_NOMEM;
    }
    /* a duplicate of the application view: never worth a core dump; and
     * the memfd's holes stay out of any dump until a crash walks them */
    dsm_sys_dump_exclude(rt, size);
    dsm_sys_dump_limit();
    out->size = size;
    out->rt = rt;
    out->memfd = fd;
    return DSM_OK;
}

dsm_status_t dsm_sys_region_map_window(dsm_region_t *region, uintptr_t base,
                                       size_t len, size_t offset)
{
    if (!range_valid(base, len) || offset % DSM_PAGE_SIZE ||
        offset > region->size || len > region->size - offset) {
        dsm_log(DSM_LOG_ERROR, "sharable region 0x%" PRIxPTR "+0x%zx: base "
                "and size must be non-zero multiples of %zu", base, len,
                DSM_PAGE_SIZE);
        return DSM_ERR_INVALID;
    }
    uintptr_t mlo, mhi;
    char name[256];
    if (dsm_sys_find_overlap(base, base + len, &mlo, &mhi, name,
                             sizeof name)) {
        dsm_log(DSM_LOG_ERROR, "sharable region [0x%" PRIxPTR ", 0x%" PRIxPTR
                ") collides with the existing mapping [0x%" PRIxPTR ", 0x%"
                PRIxPTR ") %s; choose another DSM_REGION_BASE or "
                "DSM_REGION_SIZE", base, base + len, mlo, mhi, name);
        return DSM_ERR_COLLISION;
    }
    void *app = mmap((void *)base, len, PROT_NONE,
                     MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE,
                     region->memfd, (off_t)offset);
    if (app == MAP_FAILED || (uintptr_t)app != base) {
        int err = errno;
        if (app != MAP_FAILED)
            munmap(app, len);
        dsm_log(DSM_LOG_ERROR, "mapping the sharable region at 0x%" PRIxPTR
                " (size 0x%zx): %s", base, len,
                app == MAP_FAILED ? strerror(err) : "the kernel chose "
                "another address");
        return app == MAP_FAILED && err == EEXIST ? DSM_ERR_COLLISION
                                                  : DSM_ERR_IO;
    }
    dsm_sys_dump_window(base, len, region->memfd, offset);
    note_sharable(base, len);
    return DSM_OK;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYS_ASAN 1
#endif
#endif

/* Copy memory about to be adopted.  The range holds many globals and, in an
 * AddressSanitizer build, the poisoned red zones ASan puts between them,
 * which memcpy (intercepted by ASan) would report as overflows: there the
 * copy reads words without instrumentation, through a volatile pointer so
 * that the compiler does not turn the loop back into memcpy. */
#ifdef SYS_ASAN
__attribute__((no_sanitize("address")))
static void copy_adopted(void *dst, const void *src, size_t len)
{
    const volatile uint64_t *from = src;
    uint64_t *to = dst;
    for (size_t i = 0; i < len / sizeof *to; i++)
        to[i] = from[i];
}
#else
static void copy_adopted(void *dst, const void *src, size_t len)
{
    memcpy(dst, src, len);
}
#endif

dsm_status_t dsm_sys_region_adopt_window(dsm_region_t *region, uintptr_t base,
                                         size_t len, size_t offset)
{
    if (!range_valid(base, len) || offset % DSM_PAGE_SIZE ||
        offset > region->size || len > region->size - offset)
        return DSM_ERR_INVALID;
    copy_adopted(region->rt + offset, (const void *)base, len);
    /* the flags of every view of the memfd (dsm_sys_region_remap), so
     * that pages mapped back merge with their neighbours */
    void *app = mmap((void *)base, len, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_FIXED | MAP_NORESERVE, region->memfd,
                     (off_t)offset);
    if (app == MAP_FAILED) {
        /* the old contents are gone only if mmap succeeded, so this is safe
         * to report and continue without the window */
        dsm_log(DSM_LOG_ERROR, "mapping sharable globals at 0x%" PRIxPTR
                ": %s", base, strerror(errno));
        return DSM_ERR_IO;
    }
    dsm_sys_dump_window(base, len, region->memfd, offset);
    note_sharable(base, len);
    return DSM_OK;
}

void dsm_sys_region_destroy(dsm_region_t *region)
{
    if (!region->size)
        return;
    munmap(region->rt, region->size);
    dsm_sys_dump_forget(region->memfd);
    close(region->memfd);
    memset(region, 0, sizeof *region);
}

static int mmap_prot(int prot)
{
    return prot == DSM_PROT_NONE ? PROT_NONE
         : prot == DSM_PROT_READ ? PROT_READ : PROT_READ | PROT_WRITE;
}

int dsm_sys_protect(uintptr_t addr, size_t len, int prot)
{
    return mprotect((void *)addr, len, mmap_prot(prot));
}

int dsm_sys_mapped(uintptr_t addr, size_t len)
{
    int saved_errno = errno;
    /* msync fails with ENOMEM where part of the range is unmapped */
    int mapped = msync((void *)addr, len, MS_ASYNC) == 0;
    errno = saved_errno;
    return mapped;
}

int dsm_sys_region_remap(const dsm_region_t *region, uintptr_t addr,
                         size_t len, size_t offset, int prot)
{
    int saved_errno = errno;
    void *at = mmap((void *)addr, len, mmap_prot(prot),
                    MAP_SHARED | MAP_FIXED | MAP_NORESERVE, region->memfd,
                    (off_t)offset);
    if (at != (void *)addr)
        return -1;
    errno = saved_errno;
    return 0;
}
