// SPDX-License-Identifier: Apache-2.0
#include "host_kernels.h"

#include <algorithm>

// Function multiversioning where the compiler and loader support it (GCC or Clang on glibc).
#if defined(__x86_64__) && defined(__GNUC__) && defined(__GLIBC__)
#define HVD_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HVD_VECTOR_CLONES
#endif

namespace hvd::train::host {

HVD_VECTOR_CLONES
void bias_activation(float* y, const float* bias, int rows, int cols, bool relu) {
  const float* __restrict b = bias;
  for (int r = 0; r < rows; ++r) {
    float* __restrict row = y + static_cast<size_t>(r) * static_cast<size_t>(cols);
    if (relu) {
      for (int c = 0; c < cols; ++c) row[c] = std::max(row[c] + b[c], 0.0f);
    } else {
      for (int c = 0; c < cols; ++c) row[c] += b[c];
    }
  }
}

HVD_VECTOR_CLONES
void relu_backward(float* dy, const float* y, size_t n) {
  float* __restrict d = dy;
  const float* __restrict out = y;
  for (size_t i = 0; i < n; ++i) d[i] = out[i] > 0.0f ? d[i] : 0.0f;
}

HVD_VECTOR_CLONES
void bias_grad(const float* dy, int rows, int cols, float* db) {
  float* __restrict sum = db;
  std::fill(sum, sum + cols, 0.0f);
  for (int r = 0; r < rows; ++r) {
    const float* __restrict row = dy + static_cast<size_t>(r) * static_cast<size_t>(cols);
    for (int c = 0; c < cols; ++c) sum[c] += row[c];
  }
}

HVD_VECTOR_CLONES
void sgd_momentum(float* w, const float* g, float* v, size_t n, float lr, float momentum,
                  float weight_decay, float grad_scale) {
  float* __restrict weights = w;
  const float* __restrict grads = g;
  float* __restrict velocity = v;
  for (size_t i = 0; i < n; ++i) {
    velocity[i] = momentum * velocity[i] + (grad_scale * grads[i] + weight_decay * weights[i]);
    weights[i] -= lr * velocity[i];
  }
}

}  // namespace hvd::train::host
