/* SPDX-License-Identifier: Apache-2.0 */
/* c_api_probe: the C API from C, under hvdrun: init, an allreduce and an allgather with
 * checks, an error path (a NULL tensor), shutdown. Exit 0 when everything is right. */
#include <stdio.h>

#include "hvd/hvd_c.h"

int main(void) {
  if (hvd_init() != 0) {
    fprintf(stderr, "init: %s\n", hvd_last_error());
    return 3;
  }
  const int rank = hvd_rank(), size = hvd_size();
  double v[4] = {rank, rank, rank, rank};
  const int64_t shape[1] = {4};
  hvd_tensor t = {v, HVD_FLOAT64, shape, 1, -1};
  hvd_handle* h = NULL;
  if (hvd_allreduce_async("c.sum", &t, &t, HVD_SUM, 1.0, 1.0, &h) != 0 || hvd_wait(h) != 0) {
    fprintf(stderr, "allreduce: %s\n", hvd_last_error());
    return 1;
  }
  hvd_release(h);
  if (v[3] != size * (size - 1) / 2.0) return 1;

  int32_t mine[2] = {rank, rank};
  const int64_t gshape[2] = {1, 2};
  hvd_tensor g = {mine, HVD_INT32, gshape, 2, -1};
  if (hvd_allgather_async("c.gather", &g, &h) != 0 || hvd_wait(h) != 0) return 1;
  size_t bytes = 0;
  const int32_t* all = (const int32_t*)hvd_output(h, &bytes);
  if (bytes != sizeof(int32_t) * 2 * (size_t)size || all[2 * (size - 1)] != size - 1) return 1;
  hvd_release(h);

  if (hvd_allreduce_async("c.null", NULL, &t, HVD_SUM, 1.0, 1.0, &h) != 1) return 1;
  if (hvd_shutdown() != 0) return 1;
  if (rank == 0) printf("c_api_probe: %d ranks ok\n", size);
  return 0;
}
