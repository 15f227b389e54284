// SPDX-License-Identifier: Apache-2.0
#pragma once
// Trainer: one rank's training run. Each step gathers the rank's slice of the global batch,
// runs forward and backward (each layer's gradient allreduce starting as soon as it is ready),
// waits for the averages, and takes an SGD step; epochs end with loss and accuracy over all
// ranks and a checkpoint. Rank 0 prints and writes files.

#include <chrono>
#include <memory>
#include <vector>

#include "checkpoint_notice.h"
#include "compute.h"
#include "dataset.h"
#include "gradient_exchange.h"
#include "lr_schedule.h"
#include "mlp.h"
#include "options.h"
#include "report.h"
#include "sgd.h"

namespace hvd::train {

class Trainer {
 public:
  /// Call after hvd::init(). Loads the data and builds the model; throws ConfigError on bad
  /// data or a bad checkpoint.
  explicit Trainer(const TrainOptions& options);
  /// Trains to the end; returns the report (complete on rank 0).
  RunReport run();

 private:
  void restore_or_broadcast();
  int64_t total_steps() const;
  struct StepTime {
    double wall = 0;  // seconds
    double cpu = 0;   // CPU seconds of this process, all threads (libhvd's included)
  };
  StepTime timed_step(int64_t step);
  void record_time(int64_t steps_done, const StepTime& t);
  void end_epoch(int64_t epoch);
  BatchStats evaluate_test_set();
  void save(const std::string& path, int64_t steps_done);
  void perturb_one_weight();
  bool checkpoint_due(int64_t step);
  void log(const std::string& line) const;

  TrainOptions options_;
  int rank_, ranks_;
  std::unique_ptr<Compute> compute_;
  Dataset train_set_, test_set_;
  std::unique_ptr<ShardSampler> sampler_;
  std::unique_ptr<Mlp> model_;
  std::unique_ptr<Sgd> sgd_;
  std::unique_ptr<GradientExchange> exchange_;
  LrSchedule schedule_;
  int64_t first_step_ = 0;
  int64_t verify_checks_ = 0;  // --verify-every checks passed

  std::vector<float> host_images_;
  std::vector<int32_t> host_labels_;
  DeviceArray<float> batch_images_;
  DeviceArray<int32_t> batch_labels_;

  BatchStats epoch_stats_;
  double iteration_seconds_ = 0;
  double timed_cpu_seconds_ = 0;
  int64_t timed_images_ = 0;
  int iteration_steps_ = 0;
  std::vector<double> img_per_sec_;
  RunReport report_;
  std::unique_ptr<CheckpointNotice> notice_;  // with --checkpoint only
};

}  // namespace hvd::train
