// SPDX-License-Identifier: Apache-2.0
#pragma once
// The host Compute's element-wise loops. They are memory-bound passes over up to the whole
// model (25M floats for a ResNet-50-sized MLP), so each is compiled for AVX-512, AVX2 and
// baseline x86-64 and picked at load time (GCC target_clones), and takes restrict pointers so
// the compiler vectorizes without alias checks.

#include <cstddef>

namespace hvd::train::host {

void bias_activation(float* y, const float* bias, int rows, int cols, bool relu);
void relu_backward(float* dy, const float* y, size_t n);
void bias_grad(const float* dy, int rows, int cols, float* db);
void sgd_momentum(float* w, const float* g, float* v, size_t n, float lr, float momentum,
                  float weight_decay, float grad_scale);

}  // namespace hvd::train::host
