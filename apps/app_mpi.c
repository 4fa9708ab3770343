/*
 * app_mpi.c - start-up and stderr handling shared by the MPI versions of
 * the applications (see app_mpi.h).
 */
#include "app_mpi.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void finalize_at_exit(void)
{
    int finalized;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Finalize();
}

void app_mpi_start(int *argc, char ***argv, int *rank, int *ranks)
{
    MPI_Init(argc, argv);
    atexit(finalize_at_exit);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, ranks);
}

int app_mpi_quiet_stderr(int rank)
{
    if (rank == 0)
        return -1;
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    FILE *null = fopen("/dev/null", "w");
    if (null != NULL) {
        dup2(fileno(null), STDERR_FILENO);
        fclose(null);
    }
    return saved;
}

void app_mpi_restore_stderr(int saved)
{
    if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
}
