// SPDX-License-Identifier: Apache-2.0
#pragma once
// --verify-every N (or HVD_VERIFY_EVERY=N from hvdrun --verify-every): every N steps the ranks
// compare a 64-bit digest of their parameters, with one allgather of 8 bytes per rank.
// Data-parallel ranks must hold bit-identical weights; when they do not (silent corruption in
// a link or a collective, a rank that skipped a step), a second allgather of one digest per
// parameter tensor (each layer's weight and bias) finds the first that differs, and every rank
// throws DivergedError naming the ranks that differ and that parameter (exit code 6).
// hvdrun.torch does the same for PyTorch (python/hvdrun/torch/verify.py).

#include <cstdint>
#include <string>
#include <vector>

#include "hvd/error.h"
#include "mlp.h"

namespace hvd::train {

/// Ranks hold different weights: data-parallel training has gone wrong.
struct DivergedError : Error {
  explicit DivergedError(const std::string& m) : Error(ErrorCode::kInternal, m) {}
};

/// One parameter tensor in the model's flat buffer, named as nn.Linear's would be.
struct ParamSlice {
  std::string name;  // "layer0.weight", "layer0.bias", ...
  size_t offset = 0;
  size_t count = 0;
};
/// The tensors of an Mlp with these widths, in buffer order.
std::vector<ParamSlice> parameter_slices(const std::vector<int>& widths);

/// FNV-1a over the bytes: any differing bit changes it (with overwhelming probability), and so
/// does a change of order.
int64_t digest_bytes(const void* data, size_t bytes);
/// One digest per slice of `params` (host memory).
std::vector<int64_t> slice_digests(const float* params, const std::vector<ParamSlice>& slices);

/// Which ranks differ, given each rank's digest (at least two distinct): those outside the
/// largest group of equal digests ("rank 2 differs from the other 2 rank(s)"), or every group
/// when none is largest, as with 2 ranks.
std::string who_differs(const std::vector<int64_t>& digest_of_rank);
/// `table` holds `slices` digests per rank, rank after rank: the first slice whose digest is not
/// the same on every rank, or -1.
int first_difference(const std::vector<int64_t>& table, size_t slices);

/// Collective: compares the ranks' parameters after step `step` (0-based); throws DivergedError
/// when they differ, BackendError when a collective fails.
void verify_parameters(Mlp& model, int64_t step, int64_t every);

}  // namespace hvd::train
