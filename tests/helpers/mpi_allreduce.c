/* SPDX-License-Identifier: Apache-2.0
 * mpi_allreduce: an MPI program for the Slurm tests. Every rank allreduces its rank number,
 * checks the sum against size*(size-1)/2, and prints one line:
 *
 *   rank R of N on HOST sum S ok
 *
 * (HOST is MPI_Get_processor_name, i.e. node1/node2 on the test cluster). Rank 0 then prints
 * "allreduce ok: N ranks on H hosts" after gathering the host names. Exit status 0 when the sum
 * is right on every rank, 1 otherwise (the check itself is allreduced, so all ranks agree).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int host_len = 0;
  MPI_Get_processor_name(host, &host_len);

  long mine = rank, sum = -1;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long expected = (long)size * (size - 1) / 2;
  int ok = sum == expected, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);

  printf("rank %d of %d on %s sum %ld %s\n", rank, size, host, sum,
         ok ? "ok" : "WRONG");
  fflush(stdout);

  /* Count distinct hosts on rank 0, so a test can see that the job spans the nodes. */
  char *all = NULL;
  if (rank == 0) all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
             MPI_COMM_WORLD);
  if (rank == 0) {
    int hosts = 0;
    for (int i = 0; i < size; ++i) {
      int seen = 0;
      for (int j = 0; j < i && !seen; ++j)
        seen = strcmp(all + (size_t)i * MPI_MAX_PROCESSOR_NAME,
                      all + (size_t)j * MPI_MAX_PROCESSOR_NAME) == 0;
      hosts += !seen;
    }
    printf("allreduce %s: %d ranks on %d hosts\n", all_ok ? "ok" : "FAILED", size, hosts);
    fflush(stdout);
    free(all);
  }

  MPI_Finalize();
  return all_ok ? 0 : 1;
}
