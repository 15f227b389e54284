// SPDX-License-Identifier: Apache-2.0
#include "backends/adasum/vhdd.h"

#include <algorithm>
#include <numeric>

#include "backends/adasum/kernels.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::backends::adasum {
namespace {

/// Elements [begin, begin + count) of the buffer.
struct Segment {
  size_t begin = 0;
  size_t count = 0;
  size_t end() const { return begin + count; }
};

/// One level's halving: what this rank keeps and what it hands to its partner.
struct Halves {
  Segment keep;
  Segment give;
};

Halves halve(const Segment& s, bool lower) {
  const size_t first = s.count / 2;
  const Segment front{s.begin, first};
  const Segment back{s.begin + first, s.count - first};
  return lower ? Halves{front, back} : Halves{back, front};
}

/// Where one tensor of the fused buffer lies.
std::vector<Segment> tensor_segments(const std::vector<size_t>& counts) {
  std::vector<Segment> out;
  out.reserve(counts.size());
  size_t at = 0;
  for (size_t c : counts) {
    out.push_back({at, c});
    at += c;
  }
  return out;
}

/// Sums `values` element-wise over the 2 * level ranks of this rank's group (recursive
/// doubling; a + b == b + a, so every rank of the group ends with the same bits).
void sum_in_group(int rank, int level, std::vector<double>& values,
                  std::vector<double>& received, const PairExchange& exchange) {
  received.resize(values.size());
  const size_t bytes = values.size() * sizeof(double);
  for (int m = 1; m <= level; m *= 2) {
    exchange(rank ^ m, values.data(), bytes, received.data(), bytes);
    for (size_t i = 0; i < values.size(); ++i) values[i] += received[i];
  }
}

/// One level's combination of this rank's piece `keep` (this rank's partial result: L when
/// `lower`, else R) with the partner's copy of it in `theirs`.
void combine_level(int rank, int level, const BufferView& buf, const Segment& keep,
                   const char* theirs, const std::vector<Segment>& tensors,
                   const PairExchange& exchange, std::vector<double>& sums,
                   std::vector<double>& scratch_sums) {
  const bool lower = (rank & level) == 0;
  const size_t es = dtype_size(buf.dtype);
  char* mine = static_cast<char*>(buf.data);
  sums.assign(3 * tensors.size(), 0.0);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const size_t from = std::max(tensors[i].begin, keep.begin);
    const size_t to = std::min(tensors[i].end(), keep.end());
    if (from >= to) continue;
    const DotAndNorms s = dot_and_norms(mine + from * es, theirs + (from - keep.begin) * es,
                                        to - from, buf.dtype);
    sums[3 * i] = s.dot;
    sums[3 * i + 1] = lower ? s.a_sq : s.b_sq;  // |L|^2
    sums[3 * i + 2] = lower ? s.b_sq : s.a_sq;  // |R|^2
  }
  sum_in_group(rank, level, sums, scratch_sums, exchange);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const size_t from = std::max(tensors[i].begin, keep.begin);
    const size_t to = std::min(tensors[i].end(), keep.end());
    if (from >= to) continue;
    const Coefficients c = coefficients({sums[3 * i], sums[3 * i + 1], sums[3 * i + 2]});
    scaled_add(mine + from * es, lower ? c.a : c.b, theirs + (from - keep.begin) * es,
               lower ? c.b : c.a, to - from, buf.dtype);
  }
}

}  // namespace

bool supports_size(int size) { return size > 0 && (size & (size - 1)) == 0; }

void allreduce(int rank, int size, BufferView buf, const std::vector<size_t>& tensor_counts,
               const PairExchange& exchange, std::vector<char>& scratch) {
  if (!supports_size(size)) {
    throw ConfigError(str_cat("Adasum needs a power-of-two number of ranks, as in Horovod; ",
                              "this communicator has ", size));
  }
  HVD_CHECK(std::accumulate(tensor_counts.begin(), tensor_counts.end(), size_t{0}) == buf.count,
            "Adasum: tensor counts do not add up to the buffer's ", buf.count, " elements");
  HVD_CHECK(supports_dtype(buf.dtype), "Adasum of ", dtype_name(buf.dtype));
  if (size == 1 || buf.count == 0) return;
  const size_t es = dtype_size(buf.dtype);
  char* data = static_cast<char*>(buf.data);
  scratch.resize((buf.count - buf.count / 2) * es);  // the largest half ever received
  const std::vector<Segment> tensors = tensor_segments(tensor_counts);
  std::vector<double> sums;
  std::vector<double> scratch_sums;
  std::vector<Segment> held;  // the segment this rank held before each level's halving
  Segment mine{0, buf.count};
  for (int level = 1; level < size; level *= 2) {
    const Halves h = halve(mine, (rank & level) == 0);
    exchange(rank ^ level, data + h.give.begin * es, h.give.count * es, scratch.data(),
             h.keep.count * es);
    combine_level(rank, level, buf, h.keep, scratch.data(), tensors, exchange, sums,
                  scratch_sums);
    held.push_back(mine);
    mine = h.keep;
  }
  for (int level = size / 2; level >= 1; level /= 2) {
    const Segment whole = held.back();
    held.pop_back();
    const Segment other = (rank & level) == 0 ? Segment{mine.end(), whole.count - mine.count}
                                              : Segment{whole.begin, whole.count - mine.count};
    exchange(rank ^ level, data + mine.begin * es, mine.count * es, data + other.begin * es,
             other.count * es);
    mine = whole;
  }
}

}  // namespace hvd::backends::adasum
