/* SPDX-License-Identifier: Apache-2.0 */
/* A C rank for the verdict tests (tests/why/): every rank allreduces "grad" each step, but at
 * step 2 rank 1 first waits in wait_for_data() for input that never comes. The verdict must
 * name rank 1 and wait_for_data from its native stack (eu-stack).
 * Usage: why_probe READY_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hvd/hvd_c.h"

static void check(int rc) {
  if (rc != 0) {
    fprintf(stderr, "why_probe: %s\n", hvd_last_error());
    exit(1);
  }
}

/* Blocks like a reader of a pipe that nobody writes; pause() returns after each signal. */
static void __attribute__((noinline)) wait_for_data(const char* ready_dir) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/fault", ready_dir);
  FILE* f = fopen(path, "w");
  if (f != NULL) fclose(f);
  for (;;) pause();
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  check(hvd_init());
  const int rank = hvd_rank();
  float data[4] = {1, 2, 3, 4};
  const int64_t shape[1] = {4};
  for (int step = 0; step < 4; ++step) {
    if (rank == 1 && step == 2) wait_for_data(argv[1]);
    hvd_tensor t = {data, HVD_FLOAT32, shape, 1, -1};
    hvd_handle* h = NULL;
    check(hvd_allreduce_async("grad", &t, &t, HVD_SUM, 1.0, 1.0, &h));
    check(hvd_wait(h));
    hvd_release(h);
  }
  check(hvd_shutdown());
  return 0;
}
