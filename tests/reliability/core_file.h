/*
 * core_file.h - core dumps of a test's crashing nodes: allow them, then
 * find the file the kernel wrote for a process and remove it.
 *
 * Layer: tests (libc only).  Test process only, single-threaded.  The
 * file's name comes from /proc/sys/kernel/core_pattern (and
 * core_uses_pid); a relative pattern is relative to the crashing process's
 * working directory, which core_allow makes a fresh temporary directory
 * (the test's, inherited by what it starts).  A pattern that pipes the
 * core to a program, or uses a specifier whose value the test cannot know
 * (%t, %d, %E, %i, %I, %c, %C, %f), leaves no file the test can name.
 */
#ifndef CORE_FILE_H
#define CORE_FILE_H

#include <stdio.h>
#include <sys/types.h>

/* Raise the core size limit of the test (and so of what it starts) to its
 * hard limit and move into a new temporary directory.  0 or -1. */
int core_allow(void);

/* Describe in buf what became of pid's core ("a core of 47 MiB on disk,
 * 217 MiB apparent, removed", "piped to ...", "none") and remove the
 * file; returns its size on disk in bytes, 0 when there is none, -1 when
 * it cannot be named. */
long long core_take(pid_t pid, const char *comm, int sig, char *buf,
                    size_t len);

/* Remove the temporary directory (and anything left in it). */
void core_done(void);

#endif
