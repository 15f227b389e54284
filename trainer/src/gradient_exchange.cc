// SPDX-License-Identifier: Apache-2.0
#include "gradient_exchange.h"

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "must.h"

namespace hvd::train {
namespace {

TensorView float_view(float* data, size_t count) {
  return TensorView{data, DataType::kFloat32, {static_cast<int64_t>(count)}, Device{}};
}

}  // namespace

GradientExchange::GradientExchange(Mlp& model, size_t bucket_bytes) : model_(model) {
  // Backward produces the last layer first: a bucket collects layers from the top down until
  // it holds bucket_bytes, and its lowest layer closes it. Layers are adjacent in the flat
  // gradient buffer, so a bucket is one contiguous tensor: no fusion copies.
  bucket_top_.assign(static_cast<size_t>(model_.num_layers()), -1);
  int top = model_.num_layers() - 1;
  size_t bytes = 0;
  for (int l = model_.num_layers() - 1; l >= 0; --l) {
    bytes += model_.layer_size(l) * sizeof(float);
    if (bytes >= bucket_bytes || l == 0) {
      bucket_top_[static_cast<size_t>(l)] = top;
      names_.push_back(l == top ? str_cat("grad.layer", l) : str_cat("grad.layers", l, "-", top));
      top = l - 1;
      bytes = 0;
    }
  }
  if (model_.compute().on_gpu()) host_staging_.resize(model_.parameter_count());
}

void GradientExchange::submit(int layer) {
  // Alone there is nothing to reduce; PyTorch without DDP skips it too, and libhvd would
  // still spend a negotiation cycle (about a millisecond) per tensor.
  if (size() == 1) return;
  const int top = bucket_top_[static_cast<size_t>(layer)];
  if (top < 0) return;  // the bucket closes at a lower layer
  const size_t offset = model_.layer_offset(layer);
  const size_t count = model_.layer_offset(top) + model_.layer_size(top) - offset;
  const std::string& name = names_[pending_.size()];
  float* host = model_.grads() + offset;
  if (!host_staging_.empty()) {
    host = host_staging_.data() + offset;
    model_.compute().download(host, model_.grads() + offset, count * sizeof(float));
  }
  const TensorView v = float_view(host, count);
  pending_.push_back(allreduce_async(name, v, v, ReduceOp::kSum));
}

void GradientExchange::wait_all() {
  for (const Handle& h : pending_) must(h.wait(), "gradient allreduce");
  pending_.clear();
  if (!host_staging_.empty()) {
    model_.compute().upload(model_.grads(), host_staging_.data(),
                            host_staging_.size() * sizeof(float));
  }
}

}  // namespace hvd::train
