// SPDX-License-Identifier: Apache-2.0
// The GPU Compute's element-wise kernels. Softmax runs one thread per row: the MLP's rows have
// 10 classes, so a row fits in registers and a block-wide reduction would only add overhead.
#include <cuda_runtime.h>

#include "cuda_kernels.h"

namespace hvd::train::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(size_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

__global__ void bias_activation_kernel(float* y, const float* bias, int rows, int cols, bool relu) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<size_t>(rows) * cols) return;
  const float v = y[i] + bias[i % cols];
  y[i] = relu ? fmaxf(v, 0.0f) : v;
}

__global__ void relu_backward_kernel(float* dy, const float* y, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n && y[i] <= 0.0f) dy[i] = 0.0f;
}

__global__ void softmax_xent_kernel(const float* logits, const int32_t* labels, int rows, int cols,
                                    float scale, float* dlogits, float* row_loss,
                                    float* row_correct) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = logits + static_cast<size_t>(r) * cols;
  float* d = dlogits + static_cast<size_t>(r) * cols;
  int argmax = 0;
  for (int c = 1; c < cols; ++c) argmax = x[c] > x[argmax] ? c : argmax;
  const float max = x[argmax];
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) sum += expf(x[c] - max);
  const float log_sum = logf(sum);
  const int label = labels[r];
  for (int c = 0; c < cols; ++c) {
    d[c] = scale * (expf(x[c] - max - log_sum) - (c == label ? 1.0f : 0.0f));
  }
  row_loss[r] = log_sum - (x[label] - max);
  row_correct[r] = argmax == label ? 1.0f : 0.0f;
}

__global__ void sgd_momentum_kernel(float* w, const float* g, float* v, size_t n, float lr,
                                    float momentum, float weight_decay, float grad_scale) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  v[i] = momentum * v[i] + (grad_scale * g[i] + weight_decay * w[i]);
  w[i] -= lr * v[i];
}

}  // namespace

void bias_activation(float* y, const float* bias, int rows, int cols, bool relu) {
  const size_t n = static_cast<size_t>(rows) * cols;
  if (n > 0) bias_activation_kernel<<<blocks_for(n), kThreads>>>(y, bias, rows, cols, relu);
}

void relu_backward(float* dy, const float* y, size_t n) {
  if (n > 0) relu_backward_kernel<<<blocks_for(n), kThreads>>>(dy, y, n);
}

void softmax_cross_entropy(const float* logits, const int32_t* labels, int rows, int cols,
                           float scale, float* dlogits, float* row_loss, float* row_correct) {
  if (rows > 0) {
    softmax_xent_kernel<<<blocks_for(static_cast<size_t>(rows)), kThreads>>>(
        logits, labels, rows, cols, scale, dlogits, row_loss, row_correct);
  }
}

void sgd_momentum(float* w, const float* g, float* v, size_t n, float lr, float momentum,
                  float weight_decay, float grad_scale) {
  if (n > 0) {
    sgd_momentum_kernel<<<blocks_for(n), kThreads>>>(w, g, v, n, lr, momentum, weight_decay,
                                                     grad_scale);
  }
}

const char* last_error() {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
}

}  // namespace hvd::train::cuda
