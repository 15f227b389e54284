// SPDX-License-Identifier: Apache-2.0
#include "mlp.h"

#include <cmath>

#include "hvd/error.h"
#include "random.h"

namespace hvd::train {

Mlp::Mlp(Compute& compute, std::vector<int> widths, int max_rows)
    : compute_(compute), widths_(std::move(widths)), max_rows_(max_rows) {
  HVD_CHECK(widths_.size() >= 2, "an MLP needs an input and an output width");
  for (int l = 0; l < num_layers(); ++l) {
    offsets_.push_back(total_);
    total_ += layer_size(l);
  }
  params_ = DeviceArray<float>(compute_, total_);
  grads_ = DeviceArray<float>(compute_, total_);
  for (int l = 0; l < num_layers(); ++l) {
    const size_t outputs = static_cast<size_t>(max_rows_) * widths_[static_cast<size_t>(l) + 1];
    activations_.emplace_back(compute_, outputs);
    deltas_.emplace_back(compute_, outputs);
  }
  row_loss_ = DeviceArray<float>(compute_, static_cast<size_t>(max_rows_));
  row_correct_ = DeviceArray<float>(compute_, static_cast<size_t>(max_rows_));
  host_loss_.resize(static_cast<size_t>(max_rows_));
  host_correct_.resize(static_cast<size_t>(max_rows_));
}

size_t Mlp::layer_size(int l) const {
  const size_t in = static_cast<size_t>(widths_[static_cast<size_t>(l)]);
  const size_t out = static_cast<size_t>(widths_[static_cast<size_t>(l) + 1]);
  return out * in + out;
}

void Mlp::init_params(uint64_t seed) {
  std::vector<float> host(total_);
  SplitMix64 rng(seed);
  for (int l = 0; l < num_layers(); ++l) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(widths_[static_cast<size_t>(l)]));
    float* p = host.data() + layer_offset(l);
    for (size_t i = 0; i < layer_size(l); ++i) p[i] = bound * (2.0f * rng.next_float() - 1.0f);
  }
  compute_.upload(params_.data(), host.data(), total_ * sizeof(float));
}

const float* Mlp::input_of(int l, const float* x) const {
  return l == 0 ? x : activations_[static_cast<size_t>(l) - 1].data();
}

void Mlp::forward(const float* x, int rows) {
  HVD_CHECK(rows > 0 && rows <= max_rows_, "batch of ", rows, " rows, at most ", max_rows_);
  for (int l = 0; l < num_layers(); ++l) {
    const int in = widths_[static_cast<size_t>(l)];
    const int out = widths_[static_cast<size_t>(l) + 1];
    const float* w = params_.data() + layer_offset(l);
    float* y = activations_[static_cast<size_t>(l)].data();
    compute_.gemm(false, true, rows, out, in, 1.0f, input_of(l, x), w, 0.0f, y);
    const bool hidden = l + 1 < num_layers();
    compute_.bias_activation(y, w + static_cast<size_t>(out) * in, rows, out, hidden);
  }
}

BatchStats Mlp::loss(const int32_t* labels, int rows, float scale) {
  const int classes = widths_.back();
  compute_.softmax_cross_entropy(activations_.back().data(), labels, rows, classes, scale,
                                 deltas_.back().data(), row_loss_.data(), row_correct_.data());
  const size_t bytes = static_cast<size_t>(rows) * sizeof(float);
  compute_.download(host_loss_.data(), row_loss_.data(), bytes);
  compute_.download(host_correct_.data(), row_correct_.data(), bytes);
  BatchStats s;
  s.rows = rows;
  for (int r = 0; r < rows; ++r) {
    s.loss_sum += host_loss_[static_cast<size_t>(r)];
    s.correct += host_correct_[static_cast<size_t>(r)];
  }
  return s;
}

void Mlp::backward(const float* x, int rows, const std::function<void(int)>& on_layer_grad) {
  for (int l = num_layers() - 1; l >= 0; --l) {
    const int in = widths_[static_cast<size_t>(l)];
    const int out = widths_[static_cast<size_t>(l) + 1];
    const float* delta = deltas_[static_cast<size_t>(l)].data();
    const float* w = params_.data() + layer_offset(l);
    float* gw = grads_.data() + layer_offset(l);
    compute_.gemm(true, false, out, in, rows, 1.0f, delta, input_of(l, x), 0.0f, gw);
    compute_.bias_grad(delta, rows, out, gw + static_cast<size_t>(out) * in);
    on_layer_grad(l);
    if (l > 0) {
      float* below = deltas_[static_cast<size_t>(l) - 1].data();
      compute_.gemm(false, false, rows, in, out, 1.0f, delta, w, 0.0f, below);
      compute_.relu_backward(below, activations_[static_cast<size_t>(l) - 1].data(),
                             static_cast<size_t>(rows) * in);
    }
  }
}

BatchStats Mlp::train_step(const float* x, const int32_t* labels, int rows,
                           const std::function<void(int)>& on_layer_grad) {
  forward(x, rows);
  const BatchStats stats = loss(labels, rows, 1.0f / static_cast<float>(rows));
  backward(x, rows, on_layer_grad);
  return stats;
}

BatchStats Mlp::evaluate(const float* x, const int32_t* labels, int rows) {
  forward(x, rows);
  return loss(labels, rows, 0.0f);
}

}  // namespace hvd::train
