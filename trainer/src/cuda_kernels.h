// SPDX-License-Identifier: Apache-2.0
#pragma once
// Launchers for the element-wise CUDA kernels of the GPU Compute (cuda_kernels.cu). All run on
// CUDA's default stream, the same one cuBLAS uses in cuda_compute.cc, so they are ordered.

#include <cstddef>
#include <cstdint>

namespace hvd::train::cuda {

void bias_activation(float* y, const float* bias, int rows, int cols, bool relu);
void relu_backward(float* dy, const float* y, size_t n);
void softmax_cross_entropy(const float* logits, const int32_t* labels, int rows, int cols,
                           float scale, float* dlogits, float* row_loss, float* row_correct);
void sgd_momentum(float* w, const float* g, float* v, size_t n, float lr, float momentum,
                  float weight_decay, float grad_scale);
/// The last launch's error, as cudaGetErrorString, or nullptr when there was none.
const char* last_error();

}  // namespace hvd::train::cuda
