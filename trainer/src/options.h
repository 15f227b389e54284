// SPDX-License-Identifier: Apache-2.0
#pragma once
// hvd-train's command line: the model, the data, the optimizer, the benchmark timing and the
// outputs. Parsing only; nothing here touches libhvd or the data.

#include <cstdint>
#include <string>
#include <vector>

namespace hvd::train {

struct TrainOptions {
  // Model: 784 inputs (28x28 images), these hidden widths, 10 classes.
  std::vector<int> hidden{256};
  std::string device = "cpu";  // cpu | gpu
  double bucket_mb = 0;        // 0: one allreduce per layer; else buckets of adjacent layers
  int threads = 0;             // BLAS threads per rank; 0: OMP_NUM_THREADS, else cores/local ranks

  // Data.
  std::string data_dir = "/usr/share/datasets/fashion-mnist";
  bool synthetic = false;
  int synthetic_samples = 8192;
  int batch_size = 64;  // per rank
  int epochs = 3;
  int64_t steps = 0;  // > 0: exactly this many global steps, whatever --epochs says
  uint64_t seed = 42;

  // Optimizer: SGD with momentum; Goyal et al.'s linear scaling rule and gradual warmup.
  double lr = 0.05;  // for one rank's batch; times the number of ranks with scale_lr
  bool scale_lr = false;
  double warmup_epochs = 0;
  double momentum = 0.9;
  double weight_decay = 0;

  // Benchmark timing, as in Horovod's synthetic benchmark.
  int num_warmup_batches = 10;
  int num_batches_per_iter = 10;
  int num_iters = 10;   // --synthetic: the run is warmup + iters x batches-per-iter steps
  double baseline = 0;  // one rank's img/sec, for the scaling efficiency

  // Outputs and checks.
  std::string json_path;
  std::string checkpoint_path;  // written by rank 0 at every epoch end and at the end
  bool resume = false;
  std::string save_weights;    // final weights (checkpoint format), written by rank 0
  // Every this many steps, check that all ranks hold identical weights (param_verify.h); 0:
  // never. --verify-sync is --verify-every 1; without the flag, HVD_VERIFY_EVERY (main.cc).
  int64_t verify_every = -1;   // -1: not on the command line
  bool quiet = false;          // no per-iteration lines
  int64_t test_pause_at_step = -1;  // tests only: wait there for a checkpoint notice (not on resume)
  int test_perturb_rank = -1;  // tests only: this rank flips a bit of one weight after its first step
  std::string test_perturb_param = "layer0.weight";  // tests only: in this parameter tensor
  // Tests only (test_crash.h): this rank exits 3 before this step, in the first attempt only.
  int test_crash_rank = 1;
  int64_t test_crash_at_step = -1;
  // Which attempt of a restarted job this is (hvdrun --max-restarts sets
  // TORCHELASTIC_RESTART_COUNT; main.cc reads it); 0: the first.
  int restart_count = 0;
};

/// Parses argv. Throws UsageError with one line naming the flag; prints --help and exits 0.
TrainOptions parse_options(int argc, char** argv);

/// One line for the logs: the model, data and optimizer in use.
std::string describe(const TrainOptions& o);

}  // namespace hvd::train
