/*
 * sys_activity.c - the node side of the activity board: maps this node's
 * block and keeps the calling thread's entry up to date.
 *
 * Layer: sys.  See sys_activity.h for where each call may be made (the
 * updates are plain stores to the thread's own entry: signal-safe).
 */
#include "sys_activity.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base_config.h"
#include "base_log.h"

#define TLS __thread __attribute__((tls_model("initial-exec")))

static dsm_activity_entry_t *block;          /* this node's entries */
static atomic_uint slots_taken;
static TLS dsm_activity_entry_t *mine;       /* NULL until first use */
static TLS dsm_activity_entry_t private_entry;
static TLS const char *current_what;

/* The descriptor must be dsmrun's board: a DSM_ACTIVITY_FD copied to
 * another host or program names some unrelated file there. */
static int is_board(int fd)
{
    static const char expected[] = "/memfd:dsmomp-activity";
    char path[64], target[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < (ssize_t)sizeof expected - 1)
        return 0;
    target[n] = '\0';
    return strncmp(target, expected, sizeof expected - 1) == 0;
}

void dsm_activity_attach(int rank)
{
    int fd = dsm_config()->activity_fd;
    if (fd < 0 || block || !is_board(fd))
        return;
    off_t offset = (off_t)rank * (off_t)DSM_ACTIVITY_BLOCK;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || offset % page != 0)
        return;   /* blocks are page multiples on 4 KiB pages only */
    void *map = mmap(NULL, DSM_ACTIVITY_BLOCK, PROT_READ | PROT_WRITE,
                     MAP_SHARED, fd, offset);
    /* programs the node starts must not inherit dsmrun's board */
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (map == MAP_FAILED) {
        dsm_log(DSM_LOG_WARN, "DSM_ACTIVITY_FD=%d cannot be mapped: dsmrun "
                "will not know what this node was doing if it fails", fd);
        return;
    }
    block = map;
}

static dsm_activity_entry_t *entry(void)
{
    dsm_activity_entry_t *e = mine;
    if (__builtin_expect(e != NULL, 1))
        return e;
    e = &private_entry;
    if (block) {
        unsigned slot = atomic_fetch_add(&slots_taken, 1);
        if (slot < DSM_ACTIVITY_SLOTS)
            e = &block[slot];
    }
    e->thread = -1;
    e->tid = (int32_t)syscall(SYS_gettid);   /* async-signal-safe */
    mine = e;
    return e;
}

static void set(uint32_t kind, int32_t peer, uint64_t arg, uint32_t seg,
                const char *what, uint32_t about, uint64_t arg2)
{
    dsm_activity_entry_t *e = entry();
    e->peer = peer;
    e->arg = arg;
    e->arg2 = arg2;
    e->about = about;
    e->segment = seg;
    if (what != current_what) {
        if (what) {
            size_t n = strnlen(what, DSM_ACTIVITY_WHAT_MAX - 1);
            memcpy(e->what, what, n);
            e->what[n] = '\0';
        }
        current_what = what;
    }
    e->changes++;
    /* the kind last: a reader that sees it sees the fields it needs */
    __atomic_store_n(&e->kind, kind, __ATOMIC_RELEASE);
}

static void save(dsm_activity_saved_t *saved)
{
    dsm_activity_entry_t *e = entry();
    saved->kind = e->kind;
    saved->peer = e->peer;
    saved->arg = e->arg;
    saved->arg2 = e->arg2;
    saved->about = e->about;
    saved->segment = e->segment;
    saved->what = current_what;
}

void dsm_activity_computing(void)
{
    set(DSM_ACTIVITY_COMPUTING, -1, 0, 0, NULL, 0, 0);
}

void dsm_activity_starting(void)
{
    set(DSM_ACTIVITY_STARTING, -1, 0, 0, NULL, 0, 0);
}

void dsm_activity_finishing(void)
{
    set(DSM_ACTIVITY_FINISHING, -1, 0, 0, NULL, 0, 0);
}

void dsm_activity_wait_begin(dsm_activity_saved_t *saved, const char *what,
                             int peer)
{
    save(saved);
    set(DSM_ACTIVITY_WAITING, peer, 0, 0, what, 0, 0);
}

void dsm_activity_wait_about(dsm_activity_saved_t *saved, const char *what,
                             int peer, uint32_t about, uint64_t arg,
                             uint64_t arg2)
{
    save(saved);
    set(DSM_ACTIVITY_WAITING, peer, arg, 0, what, about, arg2);
}

int dsm_activity_transfer_begin(dsm_activity_saved_t *saved, const char *what,
                                int peer)
{
    uint32_t kind = entry()->kind;
    if (kind != DSM_ACTIVITY_COMPUTING && kind != DSM_ACTIVITY_UNUSED)
        return 0;
    save(saved);
    set(DSM_ACTIVITY_WAITING, peer, 0, 0, what, DSM_ACTIVITY_ABOUT_TRANSFER,
        0);
    return 1;
}

void dsm_activity_fetch_begin(dsm_activity_saved_t *saved, int peer,
                              uint32_t seg, uint64_t offset)
{
    save(saved);
    set(DSM_ACTIVITY_FETCHING, peer, offset, seg, current_what, 0, 0);
}

void dsm_activity_end(const dsm_activity_saved_t *saved)
{
    uint32_t kind = saved->kind == DSM_ACTIVITY_UNUSED
                        ? DSM_ACTIVITY_COMPUTING : saved->kind;
    set(kind, saved->peer, saved->arg, saved->segment, saved->what,
        saved->about, saved->arg2);
}

void dsm_activity_lock(uint64_t lock_id, int delta)
{
    dsm_activity_entry_t *e = entry();
    if (delta > 0) {
        e->locks_held++;
        e->last_lock = lock_id;
    } else if (e->locks_held > 0) {
        e->locks_held--;
    }
    e->changes++;
}

void dsm_activity_thread_number(int number)
{
    entry()->thread = number;
}
