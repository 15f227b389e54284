// SPDX-License-Identifier: Apache-2.0
// The host Compute: GEMM on OpenBLAS's cblas, the element-wise steps in host_kernels.cc.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "compute.h"
#include "host_kernels.h"
#include "hvd/error.h"

namespace hvd::train {
namespace {

class HostCompute final : public Compute {
 public:
  explicit HostCompute(int threads) {
    // One rank per core by default: OpenBLAS's own threads on top of other ranks' threads
    // would oversubscribe the cores and slow every rank down.
    openblas_set_num_threads(std::max(1, threads));
  }
  std::string name() const override { return "cpu (OpenBLAS)"; }
  bool on_gpu() const override { return false; }

  void* alloc(size_t bytes) override {
    // 64-byte alignment for AVX-512 loads; at least one byte so that the pointer is unique.
    const size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (p == nullptr) throw ConfigError("hvd-train: out of host memory");
    std::memset(p, 0, rounded);
    return p;
  }
  void release(void* p) override { std::free(p); }
  void upload(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
  void download(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
  void copy(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
  void synchronize() override {}

  void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
            const float* b, float beta, float* c) override {
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, trans_a ? m : k, b,
                trans_b ? k : n, beta, c, n);
  }

  void bias_activation(float* y, const float* bias, int rows, int cols, bool relu) override {
    host::bias_activation(y, bias, rows, cols, relu);
  }
  void relu_backward(float* dy, const float* y, size_t n) override {
    host::relu_backward(dy, y, n);
  }
  void bias_grad(const float* dy, int rows, int cols, float* db) override {
    host::bias_grad(dy, rows, cols, db);
  }

  void softmax_cross_entropy(const float* logits, const int32_t* labels, int rows, int cols,
                             float scale, float* dlogits, float* row_loss,
                             float* row_correct) override {
    for (int r = 0; r < rows; ++r) {
      const float* x = logits + static_cast<size_t>(r) * cols;
      float* d = dlogits + static_cast<size_t>(r) * cols;
      const int argmax = static_cast<int>(std::max_element(x, x + cols) - x);
      const float max = x[argmax];
      double sum = 0;
      for (int c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(x[c] - max));
      const double log_sum = std::log(sum);
      for (int c = 0; c < cols; ++c) {
        const double p = std::exp(static_cast<double>(x[c] - max) - log_sum);
        d[c] = scale * static_cast<float>(p - (c == labels[r] ? 1.0 : 0.0));
      }
      row_loss[r] = static_cast<float>(log_sum - (x[labels[r]] - max));
      row_correct[r] = argmax == labels[r] ? 1.0f : 0.0f;
    }
  }

  void sgd_momentum(float* w, const float* g, float* v, size_t n, float lr, float momentum,
                    float weight_decay, float grad_scale) override {
    host::sgd_momentum(w, g, v, n, lr, momentum, weight_decay, grad_scale);
  }
};

}  // namespace

std::unique_ptr<Compute> make_host_compute(int threads) {
  return std::make_unique<HostCompute>(threads);
}

}  // namespace hvd::train
