// SPDX-License-Identifier: Apache-2.0
#pragma once
// The learning rate per step: Goyal et al. 2017's linear scaling rule (lr times the number of
// ranks, since the global batch grows with them) and gradual warmup (start from the one-rank lr
// and ramp linearly to the scaled lr over the first warmup epochs), as Horovod's
// LearningRateWarmupCallback does.

#include <cstdint>

namespace hvd::train {

struct LrSchedule {
  double base_lr = 0.05;  // for one rank's batch
  int ranks = 1;
  bool scale = false;
  double warmup_epochs = 0;
  int64_t steps_per_epoch = 1;

  /// The learning rate for step `step` (0-based, counted across epochs).
  double at(int64_t step) const;
};

}  // namespace hvd::train
