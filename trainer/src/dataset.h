// SPDX-License-Identifier: Apache-2.0
#pragma once
// The training data and how ranks share it. Every rank computes the same seeded permutation of
// the training set for each epoch; global batch k is the permutation's k-th run of
// ranks x batch samples, and rank r takes the r-th slice of it. So N ranks with batch B see
// exactly the samples one rank with batch N*B sees, in the same order, and each rank reads
// only its own shard of every batch.

#include <cstdint>
#include <string>
#include <vector>

namespace hvd::train {

constexpr int kImageSide = 28;
constexpr int kFeatures = kImageSide * kImageSide;
constexpr int kClasses = 10;

struct Dataset {
  std::vector<float> images;  // samples x kFeatures, normalized
  std::vector<int32_t> labels;
  size_t size() const { return labels.size(); }
};

/// Fashion-MNIST's `prefix` ("train" or "t10k") from `dir`, scaled to zero mean, unit variance.
/// Throws ConfigError when the files are missing or malformed.
Dataset load_fashion_mnist(const std::string& dir, const std::string& prefix);
/// `samples` images of standard normal pixels with uniform labels, the same for every `seed`.
Dataset make_synthetic(int samples, uint64_t seed);

class ShardSampler {
 public:
  ShardSampler(size_t dataset_size, int ranks, int rank, int batch_per_rank, uint64_t seed);
  /// Whole global batches per epoch (the last partial batch is dropped, so ranks stay equal).
  int64_t steps_per_epoch() const { return steps_per_epoch_; }
  /// The dataset indices of this rank's slice of global step `step` (counted from the start of
  /// training, across epochs).
  const std::vector<uint32_t>& indices(int64_t step);

 private:
  size_t size_;
  int ranks_, rank_, batch_;
  uint64_t seed_;
  int64_t steps_per_epoch_;
  int64_t epoch_ = -1;
  std::vector<uint32_t> permutation_, slice_;
};

/// The rank's share of an evaluation set: samples i with i % ranks == rank.
std::vector<uint32_t> eval_shard(size_t dataset_size, int ranks, int rank);

/// Copies the images and labels of `indices` into contiguous host arrays.
void gather(const Dataset& d, const std::vector<uint32_t>& indices, std::vector<float>& images,
            std::vector<int32_t>& labels);

}  // namespace hvd::train
