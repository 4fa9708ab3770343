/*
 * dsmcc_part.h - what dsmcc_part.c gives dsmcc_main.c.
 */
#ifndef DSMCC_PART_H
#define DSMCC_PART_H

/* A malloc'd array of n squares, filled by a parallel loop. */
long *make_squares(int n);

#endif
