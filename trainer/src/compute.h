// SPDX-License-Identifier: Apache-2.0
#pragma once
// Compute: the few dense operations an MLP needs, on host memory (OpenBLAS) or on a GPU
// (cuBLAS and a few CUDA kernels). Pointers passed in live where the Compute's memory lives
// (alloc()); only upload()/download() cross between host and device. Matrices are row-major.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace hvd::train {

class Compute {
 public:
  virtual ~Compute() = default;
  virtual std::string name() const = 0;
  virtual bool on_gpu() const = 0;

  /// Zero-filled memory of `bytes` where this Compute works; released with release().
  virtual void* alloc(size_t bytes) = 0;
  virtual void release(void* p) = 0;
  virtual void upload(void* dst, const void* host_src, size_t bytes) = 0;
  virtual void download(void* host_dst, const void* src, size_t bytes) = 0;
  virtual void copy(void* dst, const void* src, size_t bytes) = 0;
  /// Waits until the operations issued so far have finished (a no-op on the host).
  virtual void synchronize() = 0;

  /// c = alpha * op(a) * op(b) + beta * c; op(a) is m x k, op(b) is k x n, c is m x n.
  virtual void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
                    const float* b, float beta, float* c) = 0;
  /// y[r][c] += bias[c]; then y = max(y, 0) when relu.
  virtual void bias_activation(float* y, const float* bias, int rows, int cols, bool relu) = 0;
  /// dy[i] = 0 where y[i] <= 0 (y is the ReLU's output).
  virtual void relu_backward(float* dy, const float* y, size_t n) = 0;
  /// db[c] = sum over rows of dy[r][c].
  virtual void bias_grad(const float* dy, int rows, int cols, float* db) = 0;
  /// Softmax cross-entropy over each row of logits: dlogits = scale * (softmax - onehot),
  /// row_loss[r] = -log softmax[label], row_correct[r] = 1 when argmax is the label.
  virtual void softmax_cross_entropy(const float* logits, const int32_t* labels, int rows, int cols,
                                     float scale, float* dlogits, float* row_loss,
                                     float* row_correct) = 0;
  /// v = momentum * v + (grad_scale * g + weight_decay * w); w -= lr * v: PyTorch's SGD on
  /// the gradient grad_scale * g.
  virtual void sgd_momentum(float* w, const float* g, float* v, size_t n, float lr, float momentum,
                            float weight_decay, float grad_scale) = 0;
};

/// A typed allocation owned by a Compute.
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(Compute& c, size_t count)
      : compute_(&c), data_(static_cast<T*>(c.alloc(count * sizeof(T)))), count_(count) {}
  DeviceArray(DeviceArray&& o) noexcept { swap(o); }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    swap(o);
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() {
    if (data_ != nullptr) compute_->release(data_);
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return count_; }

 private:
  void swap(DeviceArray& o) noexcept {
    std::swap(compute_, o.compute_);
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
  }
  Compute* compute_ = nullptr;
  T* data_ = nullptr;
  size_t count_ = 0;
};

/// The host Compute on OpenBLAS with `threads` BLAS threads.
std::unique_ptr<Compute> make_host_compute(int threads);
/// The CUDA Compute on the local rank's GPU (local_rank modulo the visible GPUs). Throws
/// ConfigError when this build has no CUDA or no GPU is visible.
std::unique_ptr<Compute> make_gpu_compute(int local_rank);
/// Whether a CUDA device is visible (false in a build without CUDA).
bool gpu_available();

}  // namespace hvd::train
