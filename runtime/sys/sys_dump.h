/*
 * sys_dump.h - what a node's core dump holds.
 *
 * A node maps tens of gigabytes of shared memory that is mostly holes: the
 * application view and the runtime view of its sharable region (one memfd
 * of DSM_REGION_SIZE, 16 GiB by default), and the whole region of every
 * peer on its host.  The kernel dumps a shared mapping of a memfd page by
 * page and allocates every hole it reads, so with core dumps enabled
 * (`ulimit -c unlimited`, or a core_pattern pipe, which ignores the limit)
 * a crashing node spent minutes allocating and writing memory while the
 * job waited for it to die.  This module keeps the dump to the memory the
 * node really has:
 *
 *   - mappings that never belong in a core (the runtime view, a duplicate
 *     of the application view; peers' segments and lanes, other processes'
 *     memory) are excluded for good (MADV_DONTDUMP) when they are mapped;
 *   - from start-up, the process's coredump_filter leaves out anonymous
 *     shared memory (memfds), so that any signal that dumps core (an
 *     abort(), a SIGBUS, a SIGQUIT) writes a core of ordinary size;
 *   - in the crash path of a fault that is not the protocol's, the data of
 *     the application view is put back: its holes (found with SEEK_HOLE on
 *     the memfd) are excluded and anonymous shared memory is dumped again,
 *     so a SIGSEGV core holds the sharable data, node 0's main stack and
 *     the team threads' stacks.
 *
 * Layer: sys.  dsm_sys_dump_exclude, _limit, _window, _forget: start-up,
 * wire-up and shut-down (not thread-safe among themselves; no other thread
 * may crash concurrently with a registration).  dsm_sys_dump_prepare:
 * async-signal-safe (lseek, madvise, open, write; no malloc, no stdio, no
 * lock), for the crash path of the fault handler; it runs once per
 * process, later calls return at once.
 */
#ifndef SYS_DUMP_H
#define SYS_DUMP_H

#include <stddef.h>
#include <stdint.h>

/* Keep [addr, addr+len) out of any core dump. */
void dsm_sys_dump_exclude(void *addr, size_t len);

/* Leave anonymous shared memory out of this process's core dumps until
 * dsm_sys_dump_prepare puts the windows' data back.  Idempotent. */
void dsm_sys_dump_limit(void);

/* An application window: [base, base+len) maps memfd from offset. */
void dsm_sys_dump_window(uintptr_t base, size_t len, int memfd,
                         size_t offset);

/* memfd is about to be closed: its windows, which stay mapped, can no
 * longer be walked and are kept out of any core dump. */
void dsm_sys_dump_forget(int memfd);

/* The crash path: exclude the windows' holes, then dump anonymous shared
 * memory again (only if every hole could be excluded). */
void dsm_sys_dump_prepare(void);

#endif
