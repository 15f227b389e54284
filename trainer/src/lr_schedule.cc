// SPDX-License-Identifier: Apache-2.0
#include "lr_schedule.h"

#include <algorithm>

namespace hvd::train {

double LrSchedule::at(int64_t step) const {
  const double target = scale ? base_lr * ranks : base_lr;
  const double warmup_steps = warmup_epochs * static_cast<double>(steps_per_epoch);
  if (warmup_steps <= 0 || static_cast<double>(step) >= warmup_steps) return target;
  // Goyal et al. section 2.2: the step's lr moves linearly from base_lr to the target.
  const double progress = std::clamp(static_cast<double>(step) / warmup_steps, 0.0, 1.0);
  return base_lr + (target - base_lr) * progress;
}

}  // namespace hvd::train
