// SPDX-License-Identifier: Apache-2.0
#include "dataset.h"

#include <cstring>
#include <numeric>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "idx_reader.h"
#include "random.h"

namespace hvd::train {
namespace {

// Fashion-MNIST's training-set pixel mean and standard deviation (of values scaled to [0, 1]).
constexpr float kPixelMean = 0.2860f;
constexpr float kPixelStd = 0.3530f;

}  // namespace

Dataset load_fashion_mnist(const std::string& dir, const std::string& prefix) {
  const std::string images_path = dir + "/" + prefix + "-images-idx3-ubyte.gz";
  const std::string labels_path = dir + "/" + prefix + "-labels-idx1-ubyte.gz";
  const IdxArray images = read_idx(images_path);
  const IdxArray labels = read_idx(labels_path);
  if (images.dims.size() != 3 || images.dims[1] != kImageSide || images.dims[2] != kImageSide) {
    throw ConfigError(str_cat("hvd-train: ", images_path, ": expected N x 28 x 28 images"));
  }
  if (labels.dims.size() != 1 || labels.dims[0] != images.dims[0]) {
    throw ConfigError(
        str_cat("hvd-train: ", labels_path, ": expected one label per image of ", images_path));
  }
  Dataset d;
  d.images.resize(images.data.size());
  for (size_t i = 0; i < images.data.size(); ++i) {
    d.images[i] = (images.data[i] / 255.0f - kPixelMean) / kPixelStd;
  }
  d.labels.assign(labels.data.begin(), labels.data.end());
  for (int32_t label : d.labels) {
    if (label < 0 || label >= kClasses) {
      throw ConfigError(str_cat("hvd-train: ", labels_path, ": label ", label, " out of range"));
    }
  }
  return d;
}

Dataset make_synthetic(int samples, uint64_t seed) {
  Dataset d;
  SplitMix64 rng(seed ^ 0x5EEDDA7Aull);
  d.images.resize(static_cast<size_t>(samples) * kFeatures);
  for (float& x : d.images) x = rng.next_normal();
  d.labels.resize(static_cast<size_t>(samples));
  for (int32_t& y : d.labels) y = static_cast<int32_t>(rng.below(kClasses));
  return d;
}

ShardSampler::ShardSampler(size_t dataset_size, int ranks, int rank, int batch_per_rank,
                           uint64_t seed)
    : size_(dataset_size), ranks_(ranks), rank_(rank), batch_(batch_per_rank), seed_(seed) {
  const size_t global = static_cast<size_t>(ranks_) * static_cast<size_t>(batch_);
  steps_per_epoch_ = static_cast<int64_t>(size_ / global);
  if (steps_per_epoch_ == 0) {
    throw UsageError(str_cat("hvd-train: a global batch of ", global, " (", ranks_, " ranks x ",
                             batch_, ") is larger than the ", size_, " training samples"));
  }
}

const std::vector<uint32_t>& ShardSampler::indices(int64_t step) {
  const int64_t epoch = step / steps_per_epoch_;
  if (epoch != epoch_) {
    // Fisher-Yates over the whole set with the epoch's seed: identical on every rank.
    permutation_.resize(size_);
    std::iota(permutation_.begin(), permutation_.end(), 0u);
    SplitMix64 rng(seed_ * 0x100000001B3ull + static_cast<uint64_t>(epoch));
    for (size_t i = size_ - 1; i > 0; --i)
      std::swap(permutation_[i], permutation_[rng.below(i + 1)]);
    epoch_ = epoch;
  }
  const size_t global = static_cast<size_t>(ranks_) * static_cast<size_t>(batch_);
  const size_t start = static_cast<size_t>(step % steps_per_epoch_) * global +
                       static_cast<size_t>(rank_) * static_cast<size_t>(batch_);
  slice_.assign(
      permutation_.begin() + static_cast<std::ptrdiff_t>(start),
      permutation_.begin() + static_cast<std::ptrdiff_t>(start + static_cast<size_t>(batch_)));
  return slice_;
}

std::vector<uint32_t> eval_shard(size_t dataset_size, int ranks, int rank) {
  std::vector<uint32_t> out;
  for (size_t i = static_cast<size_t>(rank); i < dataset_size; i += static_cast<size_t>(ranks)) {
    out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

void gather(const Dataset& d, const std::vector<uint32_t>& indices, std::vector<float>& images,
            std::vector<int32_t>& labels) {
  images.resize(indices.size() * kFeatures);
  labels.resize(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    std::memcpy(images.data() + i * kFeatures, d.images.data() + size_t{indices[i]} * kFeatures,
                kFeatures * sizeof(float));
    labels[i] = d.labels[indices[i]];
  }
}

}  // namespace hvd::train
