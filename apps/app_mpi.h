/*
 * app_mpi.h - what the MPI versions of the applications share: start-up
 * with MPI_Finalize at exit, and silencing the usage errors of every rank
 * but 0 (every rank parses the same arguments and exits on bad input).
 */
#ifndef APP_MPI_H
#define APP_MPI_H

/* MPI_Init, MPI_Finalize registered at exit, this rank and the count. */
void app_mpi_start(int *argc, char ***argv, int *rank, int *ranks);

/* On ranks other than 0, send stderr to /dev/null until
 * app_mpi_restore_stderr(the returned value). */
int app_mpi_quiet_stderr(int rank);
void app_mpi_restore_stderr(int saved);

#endif
