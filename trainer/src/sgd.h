// SPDX-License-Identifier: Apache-2.0
#pragma once
// SGD with momentum over the model's flat parameter buffer (PyTorch's torch.optim.SGD with
// dampening 0 and no Nesterov), the velocity kept where the parameters live.

#include "compute.h"
#include "mlp.h"

namespace hvd::train {

class Sgd {
 public:
  Sgd(Mlp& model, double momentum, double weight_decay)
      : model_(model),
        velocity_(model.compute(), model.parameter_count()),
        momentum_(static_cast<float>(momentum)),
        weight_decay_(static_cast<float>(weight_decay)) {}

  /// One update with grad_scale times the model's gradients (1 / ranks turns the allreduced
  /// sums into the average).
  void step(double lr, double grad_scale) {
    model_.compute().sgd_momentum(model_.params(), model_.grads(), velocity_.data(),
                                  model_.parameter_count(), static_cast<float>(lr), momentum_,
                                  weight_decay_, static_cast<float>(grad_scale));
  }
  float* velocity() { return velocity_.data(); }

 private:
  Mlp& model_;
  DeviceArray<float> velocity_;
  float momentum_;
  float weight_decay_;
};

}  // namespace hvd::train
