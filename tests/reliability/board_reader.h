/*
 * board_reader.h - lets a test read a running job's activity board
 * (base_activity.h) through dsmrun's descriptor in /proc.
 *
 * Layer: tests (uses base_activity.h for the layout and wording).  Test
 * process only.
 */
#ifndef BOARD_READER_H
#define BOARD_READER_H

#include <stddef.h>
#include <sys/types.h>

/* Open the board of the job run by dsmrun_pid; -1 if it has none. */
int board_open(pid_t dsmrun_pid);

/* What node rank is doing, as dsmrun would word it. */
void board_describe(int fd, int rank, char *buf, size_t len);

#endif
