// SPDX-License-Identifier: Apache-2.0
// The GPU Compute: GEMM on cuBLAS, the element-wise steps in cuda_kernels.cu, bias gradients as
// a cuBLAS GEMV against a vector of ones. Everything runs on the default stream, in order.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compute.h"
#include "cuda_kernels.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::train {
namespace {

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw BackendError(str_cat("hvd-train: ", what, ": ", cudaGetErrorString(e)));
}
void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw BackendError(str_cat("hvd-train: ", what, ": cuBLAS status ", static_cast<int>(s)));
  }
}
void launch_check(const char* what) {
  if (const char* e = cuda::last_error()) throw BackendError(str_cat("hvd-train: ", what, ": ", e));
}

class CudaCompute final : public Compute {
 public:
  explicit CudaCompute(int device) {
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    cublas_check(cublasCreate(&handle_), "cublasCreate");
  }
  ~CudaCompute() override {
    if (ones_ != nullptr) cudaFree(ones_);
    cublasDestroy(handle_);
  }
  std::string name() const override { return "gpu (cuBLAS)"; }
  bool on_gpu() const override { return true; }

  void* alloc(size_t bytes) override {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, std::max<size_t>(bytes, 1)), "cudaMalloc");
    cuda_check(cudaMemset(p, 0, std::max<size_t>(bytes, 1)), "cudaMemset");
    return p;
  }
  void release(void* p) override { cudaFree(p); }
  void upload(void* dst, const void* src, size_t bytes) override {
    cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "upload");
  }
  void download(void* dst, const void* src, size_t bytes) override {
    cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "download");
  }
  void copy(void* dst, const void* src, size_t bytes) override {
    cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "copy");
  }
  void synchronize() override { cuda_check(cudaDeviceSynchronize(), "synchronize"); }

  // cuBLAS is column-major: a row-major C = op(A) op(B) is the column-major
  // C^T = op(B)^T op(A)^T, so the operands swap places.
  void gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
            const float* b, float beta, float* c) override {
    cublas_check(cublasSgemm(handle_, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                             trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b,
                             trans_b ? k : n, a, trans_a ? m : k, &beta, c, n),
                 "cublasSgemm");
  }
  void bias_activation(float* y, const float* bias, int rows, int cols, bool relu) override {
    cuda::bias_activation(y, bias, rows, cols, relu);
    launch_check("bias_activation");
  }
  void relu_backward(float* dy, const float* y, size_t n) override {
    cuda::relu_backward(dy, y, n);
    launch_check("relu_backward");
  }
  // Row-major dy (rows x cols) is column-major dy^T (cols x rows): db = dy^T * ones.
  void bias_grad(const float* dy, int rows, int cols, float* db) override {
    const float one = 1.0f;
    const float zero = 0.0f;
    cublas_check(
        cublasSgemv(handle_, CUBLAS_OP_N, cols, rows, &one, dy, cols, ones(rows), 1, &zero, db, 1),
        "cublasSgemv");
  }
  void softmax_cross_entropy(const float* logits, const int32_t* labels, int rows, int cols,
                             float scale, float* dlogits, float* row_loss,
                             float* row_correct) override {
    cuda::softmax_cross_entropy(logits, labels, rows, cols, scale, dlogits, row_loss, row_correct);
    launch_check("softmax_cross_entropy");
  }
  void sgd_momentum(float* w, const float* g, float* v, size_t n, float lr, float momentum,
                    float weight_decay, float grad_scale) override {
    cuda::sgd_momentum(w, g, v, n, lr, momentum, weight_decay, grad_scale);
    launch_check("sgd_momentum");
  }

 private:
  const float* ones(int count) {
    if (count > ones_count_) {
      if (ones_ != nullptr) cudaFree(ones_);
      cuda_check(cudaMalloc(&ones_, sizeof(float) * static_cast<size_t>(count)), "cudaMalloc");
      const std::vector<float> host(static_cast<size_t>(count), 1.0f);
      upload(ones_, host.data(), sizeof(float) * host.size());
      ones_count_ = count;
    }
    return ones_;
  }

  cublasHandle_t handle_ = nullptr;
  float* ones_ = nullptr;
  int ones_count_ = 0;
};

}  // namespace

std::unique_ptr<Compute> make_cuda_compute(int device) {
  return std::make_unique<CudaCompute>(device);
}

int cuda_device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

}  // namespace hvd::train
