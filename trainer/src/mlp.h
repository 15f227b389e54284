// SPDX-License-Identifier: Apache-2.0
#pragma once
// Mlp: fully connected layers with ReLU between them and softmax cross-entropy on top, in
// PyTorch's nn.Linear layout (W is out x in, y = x W^T + b). All parameters live in one flat
// buffer, layer after layer, each layer as [W | b]; the gradients mirror that layout, so one
// layer's gradient is one contiguous tensor to allreduce, and checkpoints, the optimizer and
// the weight checks see a single array.

#include <cstdint>
#include <functional>
#include <vector>

#include "compute.h"

namespace hvd::train {

struct BatchStats {
  double loss_sum = 0;  // sum over the batch's rows of the cross-entropy
  double correct = 0;   // rows whose argmax is the label
  int rows = 0;
};

class Mlp {
 public:
  /// widths: input, hidden..., classes. max_rows bounds the rows of any batch given later.
  Mlp(Compute& compute, std::vector<int> widths, int max_rows);

  const std::vector<int>& widths() const { return widths_; }
  int num_layers() const { return static_cast<int>(widths_.size()) - 1; }
  size_t parameter_count() const { return total_; }
  /// Layer l's [W | b] in the flat buffers (l from 0, input side first).
  size_t layer_offset(int l) const { return offsets_[static_cast<size_t>(l)]; }
  size_t layer_size(int l) const;

  float* params() { return params_.data(); }
  const float* params() const { return params_.data(); }
  float* grads() { return grads_.data(); }
  Compute& compute() { return compute_; }

  /// nn.Linear's default initialization (uniform in +-1/sqrt(fan_in)) from `seed`.
  void init_params(uint64_t seed);

  /// Forward and backward of the mean loss over `rows` samples (x: rows x widths[0] and labels,
  /// both in the Compute's memory). Calls on_layer_grad(l) as soon as layer l's gradient is
  /// final, last layer first, so its allreduce can overlap the rest of backward.
  BatchStats train_step(const float* x, const int32_t* labels, int rows,
                        const std::function<void(int)>& on_layer_grad);
  /// Forward only: the batch's loss and correct predictions.
  BatchStats evaluate(const float* x, const int32_t* labels, int rows);

 private:
  void forward(const float* x, int rows);
  BatchStats loss(const int32_t* labels, int rows, float scale);
  void backward(const float* x, int rows, const std::function<void(int)>& on_layer_grad);
  const float* input_of(int l, const float* x) const;

  Compute& compute_;
  std::vector<int> widths_;
  int max_rows_;
  std::vector<size_t> offsets_;
  size_t total_ = 0;
  DeviceArray<float> params_, grads_;
  std::vector<DeviceArray<float>> activations_;  // output of each layer (logits last)
  std::vector<DeviceArray<float>> deltas_;       // d loss / d (pre-activation) of each layer
  DeviceArray<float> row_loss_, row_correct_;
  std::vector<float> host_loss_, host_correct_;
};

}  // namespace hvd::train
