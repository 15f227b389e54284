// SPDX-License-Identifier: Apache-2.0
#pragma once
// Request and Response: what ranks tell the coordinator and what it answers (Horovod's
// message.h, without its flatbuffers). A Request says "this rank has enqueued tensor NAME with
// these properties"; a Response says "run this collective on these tensors now", or carries the
// error that fails them on every rank.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hvd/tensor.h"

namespace hvd::control {

enum class OpType : uint8_t {
  kAllreduce,
  kAllgather,
  kBroadcast,
  kReducescatter,
  kAlltoall,
  kBarrier,
  kJoin,  // hvd.join(): this rank is done; see control/join_rules.h
  // Collective over every rank (negotiated in the global set): the process set whose ranks are
  // the request's `splits` is created, or the one whose id is splits[0] removed (core/runtime.h).
  kAddProcessSet,
  kRemoveProcessSet
};
inline constexpr OpType kLastOpType = OpType::kRemoveProcessSet;
std::string_view op_type_name(OpType type);

struct Request {
  int rank = 0;
  std::string name;
  OpType type = OpType::kAllreduce;
  DataType dtype = DataType::kFloat32;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;  // broadcast
  Device device;
  std::vector<int64_t> shape;
  double prescale = 1.0;
  double postscale = 1.0;
  int32_t group = -1;  // grouped allreduce: tensors of one group complete together
  /// Alltoall: the rows this rank sends to each rank (Horovod's `splits`); empty means equal
  /// blocks of the first dimension, which must then be a multiple of the ranks.
  /// kAddProcessSet: the set's ranks; kRemoveProcessSet: its id.
  std::vector<int64_t> splits;
};

struct Response {
  enum class Kind : uint8_t { kRun, kError, kShutdown };
  Kind kind = Kind::kRun;
  OpType type = OpType::kAllreduce;
  std::vector<std::string> names;  // several when fused
  DataType dtype = DataType::kFloat32;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  Device device;
  double prescale = 1.0;
  double postscale = 1.0;
  /// Allgather: the first dimension each rank contributes, per tensor, rank-major
  /// (names.size() x size entries). Alltoall: the rows rank j sends to rank k at j * size + k.
  /// kAddProcessSet / kRemoveProcessSet: the requests' splits (the ranks, or the id).
  std::vector<int64_t> first_dims;
  /// Elements of each named tensor, in names order (what fusion packs).
  std::vector<int64_t> counts;
  int32_t group = -1;  // grouped allreduce: never split across fused responses
  std::string error;   // kError: why, naming the tensor and the ranks that disagree
  /// Some ranks had joined (hvd.join) without this tensor and contribute zeros. Such a response
  /// is never cached: a joined rank has no request to cache it with, and caches must agree.
  bool with_joined = false;
  int32_t last_joined_rank = -1;  // kJoin: the rank whose join completed the set
};

/// Why `shape` of `dtype` cannot be a tensor: an unknown dtype, a negative dimension, or a size
/// whose elements (or bytes) do not fit in int64; empty when it is valid. Every count the runtime
/// derives from a valid shape (elements, rows, bytes, with zero dimensions counted as one) fits.
/// The API and the coordinator both check it, so neither a caller nor a peer can make a rank
/// compute a wrapped size.
std::string shape_problem(const std::vector<int64_t>& shape, DataType dtype);

/// The elements of a shape that shape_problem() accepted.
int64_t element_count(const std::vector<int64_t>& shape);
/// element_count() when shape_problem() would accept the shape, else -1: the same check
/// without building a message (the API runs it for every tensor).
int64_t checked_element_count(const std::vector<int64_t>& shape, DataType dtype);

/// Binary codecs for the control channel. decode_* throw BackendError on malformed input.
std::string encode_requests(const std::vector<Request>& requests);
std::vector<Request> decode_requests(std::string_view bytes);
std::string encode_responses(const std::vector<Response>& responses);
std::vector<Response> decode_responses(std::string_view bytes);

}  // namespace hvd::control
