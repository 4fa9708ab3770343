/*
 * shim_syscall.c - system calls that read or write the program's sharable
 * memory.  The kernel copies to and from user memory without taking a
 * page fault the DSM could serve: a page this node holds no copy of
 * (PROT_NONE), or one it may not write yet (read-only until its write
 * fault makes a twin), makes read() return a short count or EFAULT and
 * fread() stop with its error flag set, so a program that reads its input
 * into a shared buffer silently lost data.  So the calls below are
 * defined here, in front of the C library's (libdsmomp comes before libc
 * in every lookup: the program's calls and those of its other libraries,
 * libgfortran's and libstdc++'s I/O included, reach them; libc's calls of
 * its own functions do not, hence fread and fwrite here too).
 *
 * Each one, when its buffer overlaps sharable memory, first touches every
 * such page of the buffer the way the kernel will use it (a load, or a
 * locked write of the byte's own value: a write fault, a twin, no change),
 * so that the fault handler makes the page accessible, and then calls the
 * C library's function.  Another thread of this node may still drop a
 * page meanwhile (its lock acquire or flush): an EFAULT is then taken
 * again (the touch is repeated, up to FAULT_RETRIES times in a row), and a
 * short transfer on a regular file goes on from where it stopped (there
 * another read never waits: at the end of the file it returns 0).  On
 * pipes, sockets and terminals a short transfer is returned as it is.
 * Buffers outside sharable memory cost a few compares.
 *
 * Layer: compiler-shim.  Entry points: read, pread, pread64, readv,
 * write, pwrite, pwrite64, writev, recv, recvfrom, send, sendto, fread,
 * fwrite, stat, lstat, fstat and the _FORTIFY_SOURCE variants
 * (__read_chk, __pread_chk, __pread64_chk, __recv_chk, __recvfrom_chk,
 * __fread_chk).  Any thread, also a signal handler (the runtime's fault
 * handler writes its messages with write()): buffers outside sharable
 * memory go straight to the C library's async-signal-safe entry points.
 */
/* pread and pread64 are two symbols here: without this the headers make
 * the first a name of the second */
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shim_kmp.h"
#include "sys_region.h"

/* EFAULTs in a row, each after the pages were touched again, before the
 * error goes to the caller (a buffer that is not all mapped) */
#define FAULT_RETRIES 64

/* The C library's own entry points (exported under these names too). */
extern ssize_t __read(int fd, void *buf, size_t len);
extern ssize_t __write(int fd, const void *buf, size_t len);
extern ssize_t __pread64(int fd, void *buf, size_t len, off_t offset);
extern ssize_t __pwrite64(int fd, const void *buf, size_t len, off_t offset);
extern size_t _IO_fread(void *ptr, size_t size, size_t n, FILE *stream);
extern size_t _IO_fwrite(const void *ptr, size_t size, size_t n,
                         FILE *stream);
extern void __chk_fail(void) __attribute__((noreturn));

SHIM_EXPORT ssize_t read(int fd, void *buf, size_t len);
SHIM_EXPORT ssize_t pread(int fd, void *buf, size_t len, off_t offset);
SHIM_EXPORT ssize_t pread64(int fd, void *buf, size_t len, off_t offset);
SHIM_EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt);
SHIM_EXPORT ssize_t write(int fd, const void *buf, size_t len);
SHIM_EXPORT ssize_t pwrite(int fd, const void *buf, size_t len,
                           off_t offset);
SHIM_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t len,
                             off_t offset);
SHIM_EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt);
SHIM_EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags);
SHIM_EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
                             struct sockaddr *from, socklen_t *fromlen);
SHIM_EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags);
SHIM_EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
                           const struct sockaddr *to, socklen_t tolen);
SHIM_EXPORT size_t fread(void *ptr, size_t size, size_t n, FILE *stream);
SHIM_EXPORT size_t fwrite(const void *ptr, size_t size, size_t n,
                          FILE *stream);
SHIM_EXPORT int stat(const char *path, struct stat *st);
SHIM_EXPORT int lstat(const char *path, struct stat *st);
SHIM_EXPORT int fstat(int fd, struct stat *st);
SHIM_EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t cap);
SHIM_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t len, off_t offset,
                                size_t cap);
SHIM_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t len,
                                  off_t offset, size_t cap);
SHIM_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t cap,
                               int flags);
SHIM_EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len,
                                   size_t cap, int flags,
                                   struct sockaddr *from,
                                   socklen_t *fromlen);
SHIM_EXPORT size_t __fread_chk(void *ptr, size_t cap, size_t size, size_t n,
                               FILE *stream);

enum { KERNEL_READS = 0, KERNEL_WRITES = 1 };

/* Make every sharable page of [buf, buf + len) accessible as the kernel
 * will use it: through the fault handler, as the program's own access
 * would.  The touched byte is inside the buffer, which the call is about
 * to overwrite anyway; the locked write keeps its value even if another
 * thread of this node writes it at the same moment. */
static void touch(const void *buf, size_t len, int how)
{
    uintptr_t p = (uintptr_t)buf, end = p + len;
    while (p < end) {
        uintptr_t next = (p | (DSM_PAGE_SIZE - 1)) + 1;
        if (dsm_sys_sharable((const void *)p, 1)) {
            if (how == KERNEL_WRITES) {
#if defined(__x86_64__) || defined(__i386__)
                __asm__ volatile("lock orb $0, %0"
                                 : "+m"(*(unsigned char *)p));
#else
                unsigned char *c = (unsigned char *)p;
                unsigned char v = __atomic_load_n(c, __ATOMIC_RELAXED);
                while (!__atomic_compare_exchange_n(c, &v, v, 0,
                                                    __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED))
                    ;
#endif
            } else {
                (void)*(const volatile unsigned char *)p;
            }
        }
        p = next;
    }
}

static int shared(const void *buf, size_t len)
{
    return len && dsm_sys_sharable(buf, len);
}

static int regular_file(int fd)
{
    struct stat st;
    return syscall(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* One transfer of a buffer that overlaps sharable memory: op moves up to
 * len bytes at buf (at offset, when it takes one) and returns the count or
 * -1 with errno.  Repeats it on the rest of the buffer after an EFAULT or,
 * on a regular file, after a short count, as described above. */
typedef ssize_t (*transfer_fn)(int fd, void *buf, size_t len, off_t offset,
                               void *arg);

static ssize_t transfer(int fd, void *buf, size_t len, off_t offset, int how,
                        int positional, transfer_fn op, void *arg)
{
    size_t done = 0;
    int faults = 0, regular = -1;
    for (;;) {
        char *at = (char *)buf + done;
        touch(at, len - done, how);
        ssize_t r = op(fd, at, len - done,
                       positional ? offset + (off_t)done : 0, arg);
        if (r < 0) {
            if (errno == EFAULT && ++faults <= FAULT_RETRIES)
                continue;
            return done ? (ssize_t)done : -1;
        }
        faults = 0;
        done += (size_t)r;
        if (r == 0 || done == len)
            return (ssize_t)done;
        if (regular < 0)
            regular = regular_file(fd);
        if (!regular)
            return (ssize_t)done;
    }
}

static ssize_t op_read(int fd, void *buf, size_t len, off_t off, void *arg)
{
    (void)off;
    (void)arg;
    return __read(fd, buf, len);
}

static ssize_t op_pread(int fd, void *buf, size_t len, off_t off, void *arg)
{
    (void)arg;
    return __pread64(fd, buf, len, off);
}

static ssize_t op_write(int fd, void *buf, size_t len, off_t off, void *arg)
{
    (void)off;
    (void)arg;
    return __write(fd, buf, len);
}

static ssize_t op_pwrite(int fd, void *buf, size_t len, off_t off, void *arg)
{
    (void)arg;
    return __pwrite64(fd, buf, len, off);
}

ssize_t read(int fd, void *buf, size_t len)
{
    if (!shared(buf, len))
        return __read(fd, buf, len);
    return transfer(fd, buf, len, 0, KERNEL_WRITES, 0, op_read, NULL);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t offset)
{
    if (!shared(buf, len))
        return __pread64(fd, buf, len, offset);
    return transfer(fd, buf, len, offset, KERNEL_WRITES, 1, op_pread, NULL);
}

ssize_t pread(int fd, void *buf, size_t len, off_t offset)
{
    return pread64(fd, buf, len, offset);
}

ssize_t write(int fd, const void *buf, size_t len)
{
    if (!shared(buf, len))
        return __write(fd, buf, len);
    return transfer(fd, (void *)buf, len, 0, KERNEL_READS, 0, op_write,
                    NULL);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t offset)
{
    if (!shared(buf, len))
        return __pwrite64(fd, buf, len, offset);
    return transfer(fd, (void *)buf, len, offset, KERNEL_READS, 1,
                    op_pwrite, NULL);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t offset)
{
    return pwrite64(fd, buf, len, offset);
}

/* Sockets: the flags and addresses ride in arg. */
typedef struct socket_call {
    int flags;
    struct sockaddr *from;
    socklen_t *fromlen;
    const struct sockaddr *to;
    socklen_t tolen;
} socket_call_t;

static ssize_t op_recvfrom(int fd, void *buf, size_t len, off_t off,
                           void *arg)
{
    (void)off;
    socket_call_t *c = arg;
    return syscall(SYS_recvfrom, fd, buf, len, c->flags, c->from,
                   c->fromlen);
}

static ssize_t op_sendto(int fd, void *buf, size_t len, off_t off, void *arg)
{
    (void)off;
    socket_call_t *c = arg;
    return syscall(SYS_sendto, fd, buf, len, c->flags, c->to, c->tolen);
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
                 struct sockaddr *from, socklen_t *fromlen)
{
    socket_call_t c = {.flags = flags, .from = from, .fromlen = fromlen};
    if (!shared(buf, len))
        return op_recvfrom(fd, buf, len, 0, &c);
    if (fromlen && shared(fromlen, sizeof *fromlen))
        touch(fromlen, sizeof *fromlen, KERNEL_WRITES);
    if (from && fromlen && shared(from, *fromlen))
        touch(from, *fromlen, KERNEL_WRITES);
    return transfer(fd, buf, len, 0, KERNEL_WRITES, 0, op_recvfrom, &c);
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    return recvfrom(fd, buf, len, flags, NULL, NULL);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
               const struct sockaddr *to, socklen_t tolen)
{
    socket_call_t c = {.flags = flags, .to = to, .tolen = tolen};
    if (to && shared(to, tolen))
        touch(to, tolen, KERNEL_READS);
    if (!shared(buf, len))
        return op_sendto(fd, (void *)buf, len, 0, &c);
    return transfer(fd, (void *)buf, len, 0, KERNEL_READS, 0, op_sendto,
                    &c);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
    return sendto(fd, buf, len, flags, NULL, 0);
}

/* Scatter and gather: every sharable piece touched, then one call, again
 * after an EFAULT (a short count is returned as it is). */
static ssize_t vector(int fd, const struct iovec *iov, int iovcnt, int how,
                      long nr)
{
    int faults = 0;
    for (;;) {
        for (int i = 0; i < iovcnt && iov; i++)
            if (shared(iov[i].iov_base, iov[i].iov_len))
                touch(iov[i].iov_base, iov[i].iov_len, how);
        ssize_t r = syscall(nr, fd, iov, iovcnt);
        if (r < 0 && errno == EFAULT && ++faults <= FAULT_RETRIES)
            continue;
        return r;
    }
}

ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
    return vector(fd, iov, iovcnt, KERNEL_WRITES, SYS_readv);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    return vector(fd, iov, iovcnt, KERNEL_READS, SYS_writev);
}

/* stdio: libc's fread reads large requests straight into the buffer with
 * its own read (not the one above).  Counted in bytes, so that a repeat
 * after an EFAULT goes on mid-item; the stream's error flag, set by the
 * fault, is cleared only then. */
static size_t stdio_transfer(void *ptr, size_t size, size_t n, FILE *stream,
                             int how)
{
    size_t bytes;
    if (__builtin_mul_overflow(size, n, &bytes) || !shared(ptr, bytes))
        return how == KERNEL_WRITES ? _IO_fread(ptr, size, n, stream)
                                    : _IO_fwrite(ptr, size, n, stream);
    size_t done = 0;
    int faults = 0;
    while (done < bytes) {
        char *at = (char *)ptr + done;
        touch(at, bytes - done, how);
        int had_error = ferror(stream);
        errno = 0;
        size_t got = how == KERNEL_WRITES
                         ? _IO_fread(at, 1, bytes - done, stream)
                         : _IO_fwrite(at, 1, bytes - done, stream);
        done += got;
        if (done == bytes)
            break;
        if (got)
            faults = 0;
        if (had_error || !ferror(stream) || errno != EFAULT ||
            ++faults > FAULT_RETRIES)
            break;   /* the end of the file, or an error of its own */
        clearerr(stream);
    }
    return done / size;
}

size_t fread(void *ptr, size_t size, size_t n, FILE *stream)
{
    return stdio_transfer(ptr, size, n, stream, KERNEL_WRITES);
}

size_t fwrite(const void *ptr, size_t size, size_t n, FILE *stream)
{
    return stdio_transfer((void *)ptr, size, n, stream, KERNEL_READS);
}

/* stat and friends: the kernel writes the whole structure. */
static int stat_call(int fd, const char *path, struct stat *st, int flags)
{
    int faults = 0;
    for (;;) {
        if (shared(st, sizeof *st))
            touch(st, sizeof *st, KERNEL_WRITES);
        if (path && shared(path, 1))
            touch(path, 1, KERNEL_READS);   /* its first page at least */
        long r = path ? syscall(SYS_newfstatat, fd, path, st, flags)
                      : syscall(SYS_fstat, fd, st);
        if (r < 0 && errno == EFAULT && shared(st, sizeof *st) &&
            ++faults <= FAULT_RETRIES)
            continue;
        return (int)r;
    }
}

int stat(const char *path, struct stat *st)
{
    return stat_call(AT_FDCWD, path, st, 0);
}

int lstat(const char *path, struct stat *st)
{
    return stat_call(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

int fstat(int fd, struct stat *st) { return stat_call(fd, NULL, st, 0); }

/* _FORTIFY_SOURCE's checked variants: the check, then the calls above. */
ssize_t __read_chk(int fd, void *buf, size_t len, size_t cap)
{
    if (len > cap)
        __chk_fail();
    return read(fd, buf, len);
}

ssize_t __pread64_chk(int fd, void *buf, size_t len, off_t offset,
                      size_t cap)
{
    if (len > cap)
        __chk_fail();
    return pread64(fd, buf, len, offset);
}

ssize_t __pread_chk(int fd, void *buf, size_t len, off_t offset, size_t cap)
{
    return __pread64_chk(fd, buf, len, offset, cap);
}

ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t cap, int flags,
                       struct sockaddr *from, socklen_t *fromlen)
{
    if (len > cap)
        __chk_fail();
    return recvfrom(fd, buf, len, flags, from, fromlen);
}

ssize_t __recv_chk(int fd, void *buf, size_t len, size_t cap, int flags)
{
    return __recvfrom_chk(fd, buf, len, cap, flags, NULL, NULL);
}

size_t __fread_chk(void *ptr, size_t cap, size_t size, size_t n,
                   FILE *stream)
{
    size_t bytes;
    if (__builtin_mul_overflow(size, n, &bytes) || bytes > cap)
        __chk_fail();
    return fread(ptr, size, n, stream);
}
