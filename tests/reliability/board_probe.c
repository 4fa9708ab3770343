/*
 * board_probe.c - prints what a node is doing, read from the activity
 * board held by a process (dsmrun, or the node agent on another host),
 * for shell tests that must act in a known state (tests/hosts).
 *
 * Layer: tests.  Usage: board_probe PID RANK.  Prints one line, the
 * activity as dsmrun words it ("" when the node recorded nothing yet);
 * exit 0, or 1 when PID holds no board.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "board_reader.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: board_probe PID RANK\n");
        return 2;
    }
    int fd = board_open((pid_t)atol(argv[1]));
    if (fd < 0)
        return 1;
    char text[512];
    board_describe(fd, atoi(argv[2]), text, sizeof text);
    close(fd);
    printf("%s\n", text);
    return 0;
}
