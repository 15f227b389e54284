// SPDX-License-Identifier: Apache-2.0
#include "control/message.h"

#include <cstring>

#include "codec/bytes.h"
#include "hvd/error.h"

namespace hvd::control {
namespace {

// Fields in host order (codec/bytes.h): every rank of a run is the same build on the same kind
// of machine, so the codec only needs to be unambiguous, not portable across architectures.
using Writer = codec::ByteWriter<>;

// Every short read is the same error: the peer sent a bad frame.
[[noreturn]] void truncated(const char* /*what*/, size_t /*need*/, size_t /*left*/) {
  throw BackendError("control message truncated: the peer sent a bad frame");
}
using Reader = codec::ByteReader<decltype(&truncated)>;

template <typename E>
E get_enum(Reader& r, uint8_t last) {
  const uint8_t v = r.get<uint8_t>();
  if (v > last) {
    throw BackendError(str_cat("control message has an unknown enum value ", static_cast<int>(v)));
  }
  return static_cast<E>(v);
}

}  // namespace

std::string_view op_type_name(OpType type) {
  switch (type) {
    case OpType::kAllreduce:
      return "allreduce";
    case OpType::kAllgather:
      return "allgather";
    case OpType::kBroadcast:
      return "broadcast";
    case OpType::kReducescatter:
      return "reducescatter";
    case OpType::kAlltoall:
      return "alltoall";
    case OpType::kBarrier:
      return "barrier";
    case OpType::kJoin:
      return "join";
    case OpType::kAddProcessSet:
      return "add_process_set";
    case OpType::kRemoveProcessSet:
      return "remove_process_set";
  }
  return "?";
}

int64_t checked_element_count(const std::vector<int64_t>& shape, DataType dtype) {
  const auto size = static_cast<int64_t>(dtype_size(dtype));
  if (size == 0) return -1;
  int64_t bound = size, elements = 1;  // bound: as in shape_problem()
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(bound, d == 0 ? 1 : d, &bound)) return -1;
    elements *= d;  // <= bound, which fits
  }
  return elements;
}

std::string shape_problem(const std::vector<int64_t>& shape, DataType dtype) {
  if (checked_element_count(shape, dtype) >= 0) return {};
  const auto size = static_cast<int64_t>(dtype_size(dtype));
  if (size == 0) return str_cat("an unknown data type (", static_cast<int>(dtype), ")");
  // The product of the dimensions with zeros counted as one bounds every partial product the
  // runtime takes (a row, the rows of one rank, the bytes), so checking it checks them all.
  int64_t bound = size;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return str_cat("dimension ", i, " is ", shape[i], "; dimensions must be >= 0");
    }
    if (__builtin_mul_overflow(bound, shape[i] == 0 ? 1 : shape[i], &bound)) {
      return str_cat("its ", shape.size(), " dimensions of ", dtype_name(dtype),
                     " hold more bytes than fit in int64");
    }
  }
  return {};
}

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string encode_requests(const std::vector<Request>& requests) {
  Writer w;
  w.put<uint32_t>(static_cast<uint32_t>(requests.size()));
  for (const Request& r : requests) {
    w.put<int32_t>(r.rank);
    w.put_string(r.name);
    w.put<uint8_t>(static_cast<uint8_t>(r.type));
    w.put<uint8_t>(static_cast<uint8_t>(r.dtype));
    w.put<uint8_t>(static_cast<uint8_t>(r.op));
    w.put<int32_t>(r.root);
    w.put<int32_t>(r.device.index);
    w.put_vector<int64_t>(r.shape);
    w.put<double>(r.prescale);
    w.put<double>(r.postscale);
    w.put<int32_t>(r.group);
    w.put_vector<int64_t>(r.splits);
  }
  return w.take();
}

std::vector<Request> decode_requests(std::string_view bytes) {
  Reader rd(bytes, truncated);
  std::vector<Request> out(rd.get_count(40));  // a request is at least 40 bytes
  for (Request& r : out) {
    r.rank = rd.get<int32_t>();
    r.name = rd.get_string();
    r.type = get_enum<OpType>(rd, static_cast<uint8_t>(kLastOpType));
    r.dtype = get_enum<DataType>(rd, static_cast<uint8_t>(DataType::kInt16));
    r.op = get_enum<ReduceOp>(rd, static_cast<uint8_t>(ReduceOp::kAdasum));
    r.root = rd.get<int32_t>();
    r.device.index = rd.get<int32_t>();
    r.shape = rd.get_vector<int64_t>();
    r.prescale = rd.get<double>();
    r.postscale = rd.get<double>();
    r.group = rd.get<int32_t>();
    r.splits = rd.get_vector<int64_t>();
  }
  if (!rd.done()) throw BackendError("control message has trailing bytes");
  return out;
}

std::string encode_responses(const std::vector<Response>& responses) {
  Writer w;
  w.put<uint32_t>(static_cast<uint32_t>(responses.size()));
  for (const Response& r : responses) {
    w.put<uint8_t>(static_cast<uint8_t>(r.kind));
    w.put<uint8_t>(static_cast<uint8_t>(r.type));
    w.put<uint32_t>(static_cast<uint32_t>(r.names.size()));
    for (const std::string& n : r.names) w.put_string(n);
    w.put<uint8_t>(static_cast<uint8_t>(r.dtype));
    w.put<uint8_t>(static_cast<uint8_t>(r.op));
    w.put<int32_t>(r.root);
    w.put<int32_t>(r.device.index);
    w.put<double>(r.prescale);
    w.put<double>(r.postscale);
    w.put_vector<int64_t>(r.first_dims);
    w.put_vector<int64_t>(r.counts);
    w.put<int32_t>(r.group);
    w.put_string(r.error);
    w.put<uint8_t>(r.with_joined ? 1 : 0);
    w.put<int32_t>(r.last_joined_rank);
  }
  return w.take();
}

std::vector<Response> decode_responses(std::string_view bytes) {
  Reader rd(bytes, truncated);
  std::vector<Response> out(rd.get_count(40));  // so is a response
  for (Response& r : out) {
    r.kind = get_enum<Response::Kind>(rd, static_cast<uint8_t>(Response::Kind::kShutdown));
    r.type = get_enum<OpType>(rd, static_cast<uint8_t>(kLastOpType));
    r.names.resize(rd.get_count(4));
    for (std::string& n : r.names) n = rd.get_string();
    r.dtype = get_enum<DataType>(rd, static_cast<uint8_t>(DataType::kInt16));
    r.op = get_enum<ReduceOp>(rd, static_cast<uint8_t>(ReduceOp::kAdasum));
    r.root = rd.get<int32_t>();
    r.device.index = rd.get<int32_t>();
    r.prescale = rd.get<double>();
    r.postscale = rd.get<double>();
    r.first_dims = rd.get_vector<int64_t>();
    r.counts = rd.get_vector<int64_t>();
    r.group = rd.get<int32_t>();
    r.error = rd.get_string();
    r.with_joined = get_enum<uint8_t>(rd, 1) != 0;  // 0 or 1: the bytes must encode back
    r.last_joined_rank = rd.get<int32_t>();
  }
  if (!rd.done()) throw BackendError("control message has trailing bytes");
  return out;
}

}  // namespace hvd::control
