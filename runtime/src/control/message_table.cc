// SPDX-License-Identifier: Apache-2.0
#include "control/message_table.h"

#include <functional>
#include <sstream>

#include "control/join_rules.h"
#include "hvd/error.h"

namespace hvd::control {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
  return s.str() + "]";
}

// Compares one property across ranks; on a difference, says which ranks differ from rank 0.
std::string differ(const std::vector<Request>& rs, const char* what,
                   const std::function<std::string(const Request&)>& value) {
  const std::string first = value(rs[0]);
  std::string ranks, theirs;
  int count = 0;
  for (const Request& r : rs) {
    if (value(r) == first) continue;
    ranks += (ranks.empty() ? "" : ", ") + std::to_string(r.rank);
    ++count;
    if (theirs.empty()) theirs = value(r);
  }
  if (ranks.empty()) return {};
  // "rank 1 has [5]" names the rank as every other message does (and as a reader searches).
  return str_cat("mismatched ", what, " for tensor '", rs[0].name, "': rank ", rs[0].rank, " has ",
                 first, ", ", count == 1 ? "rank " : "ranks ", ranks, count == 1 ? " has " : " have ",
                 theirs, " (first difference shown)");
}

std::vector<int64_t> tail_dims(const std::vector<int64_t>& shape) {
  return shape.empty() ? shape : std::vector<int64_t>(shape.begin() + 1, shape.end());
}

// Why an Adasum request cannot run: Horovod's limits (backends/adasum/vhdd.h).
std::string adasum_problem(const Request& r, int size) {
  if (r.type != OpType::kAllreduce) return "Adasum is an allreduce op";
  if (r.dtype != DataType::kFloat16 && r.dtype != DataType::kFloat32 &&
      r.dtype != DataType::kFloat64) {
    return str_cat("Adasum takes float16, float32 or float64, not ", dtype_name(r.dtype));
  }
  if (size & (size - 1)) {
    return str_cat("Adasum needs a power-of-two number of ranks, as in Horovod; this set has ",
                   size);
  }
  return {};
}

// Why a rank's own request cannot run whatever the others say: a shape no tensor can have, a
// root outside the world. Checked here, on the coordinator, because a request may come from a
// peer (another build, a bug): no rank may size a buffer from a count nobody validated.
std::string request_problem(const Request& r, int size) {
  if (std::string why = shape_problem(r.shape, r.dtype); !why.empty()) {
    return str_cat(op_type_name(r.type), " '", r.name, "': rank ", r.rank, " gave shape ",
                   shape_text(r.shape), ": ", why);
  }
  if ((r.type == OpType::kReducescatter || r.type == OpType::kAlltoall) && r.shape.empty()) {
    return str_cat(op_type_name(r.type), " '", r.name, "': rank ", r.rank,
                   " gave a scalar; it needs at least one dimension to split");
  }
  if (r.op == ReduceOp::kAdasum) {
    if (std::string why = adasum_problem(r, size); !why.empty()) {
      return str_cat(op_type_name(r.type), " '", r.name, "': ", why);
    }
  }
  if (r.type == OpType::kBroadcast && (r.root < 0 || r.root >= size)) {
    return str_cat("broadcast '", r.name, "': rank ", r.rank, " gave root rank ", r.root,
                   ", outside 0..", size - 1);
  }
  return {};
}

// An allgather's output: the rows of every rank together must still be a valid shape.
std::string gathered_problem(const std::vector<Request>& rs) {
  std::vector<int64_t> gathered = rs[0].shape.empty() ? std::vector<int64_t>{0} : rs[0].shape;
  gathered[0] = 0;
  for (const Request& r : rs) {
    const int64_t rows = r.shape.empty() ? 1 : r.shape[0];
    if (__builtin_add_overflow(gathered[0], rows, &gathered[0])) gathered[0] = -1;
  }
  if (std::string why = shape_problem(gathered, rs[0].dtype); !why.empty() || gathered[0] < 0) {
    return str_cat("allgather '", rs[0].name, "': the gathered tensor would be too large (",
                   why.empty() ? "its rows overflow int64" : why, ")");
  }
  return {};
}

// Alltoall: each rank's rows go out by its splits (one non-negative count per rank, adding up
// to its first dimension), or, without splits, in equal blocks, so that its first dimension
// must be a multiple of the ranks. Empty when every rank's request is usable.
std::string split_problem(const std::string& name, const std::vector<Request>& rs) {
  const auto size = static_cast<int64_t>(rs.size());
  for (const Request& q : rs) {
    if (q.shape.empty()) {
      return str_cat("alltoall '", name, "': rank ", q.rank, " gave a scalar; it needs rows");
    }
    const int64_t rows = q.shape[0];
    if (q.splits.empty() != rs[0].splits.empty() ||
        (q.splits.empty() && q.shape != rs[0].shape)) {
      // Equal blocks into an output of the input's shape (alltoall_async) need the same shape
      // on every rank; ranks that split their own rows all say how (alltoallv_async).
      return str_cat("alltoall '", name, "': ranks ", rs[0].rank, " and ", q.rank,
                     " disagree: every rank passes the same shape and no splits, or every rank "
                     "passes its splits");
    }
    if (q.splits.empty()) {
      if (rows % size != 0) {
        return str_cat("alltoall '", name, "': the first dimension (", rows, ") of rank ", q.rank,
                       " must be a multiple of the number of ranks (", size,
                       ") when it gives no splits");
      }
      continue;
    }
    int64_t sum = 0;
    bool negative = false;
    for (int64_t s : q.splits) {
      negative = negative || s < 0;
      sum += negative ? 0 : s;
    }
    if (static_cast<int64_t>(q.splits.size()) != size || negative || sum != rows) {
      return str_cat("alltoall '", name, "': rank ", q.rank, " gave ", q.splits.size(),
                     " splits adding up to ", sum, (negative ? " (some negative)" : ""), " for ",
                     rows, " rows and ", size, " ranks; it needs one count per rank, each at "
                     "least 0, adding up to its first dimension");
    }
  }
  return {};
}

// The response to tensor `name` as `first` asked for it, before any check: no elements yet.
Response response_to(const Request& first, const std::string& name, bool with_joined) {
  Response r;
  r.type = first.type;
  r.names = {name};
  r.dtype = first.dtype;
  r.op = first.op;
  r.root = first.root;
  r.device = first.device;
  r.prescale = first.prescale;
  r.postscale = first.postscale;
  r.group = first.group;
  r.with_joined = with_joined;
  r.counts = {0};
  return r;
}

}  // namespace

std::string check_agreement(const std::vector<Request>& rs) {
  HVD_CHECK(!rs.empty(), "no requests to compare");
  using Check = std::pair<const char*, std::function<std::string(const Request&)>>;
  std::vector<Check> checks = {
      {"operations", [](const Request& r) { return std::string(op_type_name(r.type)); }},
      {"data types", [](const Request& r) { return std::string(dtype_name(r.dtype)); }},
      {"devices", [](const Request& r) { return std::string(r.device.is_cpu() ? "cpu" : "gpu"); }},
  };
  const OpType type = rs[0].type;
  if (type == OpType::kAllreduce || type == OpType::kReducescatter) {
    checks.push_back({"reduce ops", [](const Request& r) { return std::string(op_name(r.op)); }});
    checks.push_back(
        {"scale factors", [](const Request& r) { return str_cat(r.prescale, "/", r.postscale); }});
  }
  if (type == OpType::kAllreduce || type == OpType::kBroadcast || type == OpType::kReducescatter) {
    checks.push_back({"shapes", [](const Request& r) { return shape_text(r.shape); }});
  }
  // Alltoall: each rank sends its own rows (splits), so only the rows' shape must agree.
  if (type == OpType::kAllgather || type == OpType::kAlltoall) {
    checks.push_back({"shapes after the first dimension",
                      [](const Request& r) { return shape_text(tail_dims(r.shape)); }});
  }
  if (type == OpType::kBroadcast) {
    checks.push_back({"root ranks", [](const Request& r) { return std::to_string(r.root); }});
  }
  if (type == OpType::kAddProcessSet) {
    checks.push_back({"process set ranks", [](const Request& r) { return shape_text(r.splits); }});
  }
  if (type == OpType::kRemoveProcessSet) {
    checks.push_back({"process set ids", [](const Request& r) { return shape_text(r.splits); }});
  }
  for (const Check& c : checks) {
    if (std::string why = differ(rs, c.first, c.second); !why.empty()) return why;
  }
  return {};
}

MessageTable::MessageTable(int size) : size_(size), joined_(static_cast<size_t>(size), false) {
  HVD_CHECK(size > 0, "world size ", size);
}

bool MessageTable::complete(const Entry& e) const {
  if (e.count == size_) return true;
  if (joined_count_ == 0) return false;
  for (size_t r = 0; r < e.present.size(); ++r) {
    if (!e.present[r] && !joined_[r]) return false;
  }
  return true;
}

void MessageTable::join(int rank) {
  if (rank < 0 || rank >= size_) {
    throw BackendError(
        str_cat("control message: a join claims rank ", rank, ", outside 0..", size_ - 1));
  }
  last_joined_ = rank;
  if (joined_[static_cast<size_t>(rank)]) return;
  joined_[static_cast<size_t>(rank)] = true;
  ++joined_count_;
}

std::vector<std::string> MessageTable::completed_by_joins() const {
  std::vector<std::string> names;
  if (joined_count_ == 0) return names;
  for (const auto& [name, e] : table_) {
    if (complete(e)) names.push_back(name);
  }
  return names;
}

void MessageTable::reset_joins() {
  joined_.assign(static_cast<size_t>(size_), false);
  joined_count_ = 0;
  last_joined_ = -1;
}

bool MessageTable::add(const Request& request) {
  if (request.rank < 0 || request.rank >= size_) {
    // The rank comes off the wire: a peer's bad frame, not a bug here.
    throw BackendError(str_cat("control message: a request for '", request.name, "' claims rank ",
                               request.rank, ", outside 0..", size_ - 1));
  }
  Entry& e = table_[request.name];
  if (e.present.empty()) {
    e.requests.resize(static_cast<size_t>(size_));
    e.present.assign(static_cast<size_t>(size_), false);
  }
  const size_t r = static_cast<size_t>(request.rank);
  if (e.present[r]) {
    e.duplicates.push_back(request.rank);
    return complete(e);
  }
  e.present[r] = true;
  e.requests[r] = request;
  ++e.count;
  return complete(e);
}

Response MessageTable::take_response(const std::string& name) {
  auto it = table_.find(name);
  HVD_CHECK(it != table_.end() && complete(it->second), "tensor '", name, "' is not complete");
  const Entry e = std::move(it->second);
  table_.erase(it);
  // The ranks that asked, in rank order; joined ranks that did not ask are left out.
  std::vector<Request> asked;
  std::vector<int> absent;
  for (size_t q = 0; q < e.requests.size(); ++q) {
    if (e.present[q]) {
      asked.push_back(e.requests[q]);
    } else {
      absent.push_back(static_cast<int>(q));
    }
  }
  const Request& first = asked.at(0);
  Response r = response_to(first, name, !absent.empty());
  for (const Request& q : asked) {
    if (std::string why = request_problem(q, size_); !why.empty()) {
      r.kind = Response::Kind::kError;
      r.error = why;
      return r;
    }
  }
  r.counts = {element_count(first.shape)};
  if (!e.duplicates.empty()) {
    r.kind = Response::Kind::kError;
    r.error = str_cat("tensor '", name, "' was submitted twice by rank ", e.duplicates[0],
                      " before the first one completed; names must be unique while in flight");
    return r;
  }
  std::string why = check_agreement(asked);
  if (why.empty() && !absent.empty()) why = join_problem(first, absent);
  if (why.empty() && r.type == OpType::kAllgather) why = gathered_problem(asked);
  if (why.empty() && r.type == OpType::kAlltoall) why = split_problem(name, asked);
  if (!why.empty()) {
    r.kind = Response::Kind::kError;
    r.error = why;
    return r;
  }
  if (first.type == OpType::kAllgather) {
    for (const Request& q : asked) r.first_dims.push_back(q.shape.empty() ? 1 : q.shape[0]);
  }
  if (first.type == OpType::kAddProcessSet || first.type == OpType::kRemoveProcessSet) {
    r.first_dims = first.splits;  // the same on every rank: checked above
  }
  if (first.type == OpType::kAlltoall) {
    // The whole matrix, so that every rank knows what it receives from each rank as well.
    for (const Request& q : asked) {
      for (int k = 0; k < size_; ++k) {
        r.first_dims.push_back(q.splits.empty() ? q.shape[0] / size_
                                                : q.splits[static_cast<size_t>(k)]);
      }
    }
  }
  return r;
}

std::map<std::string, std::vector<int>> MessageTable::pending() const {
  std::map<std::string, std::vector<int>> out;
  for (const auto& [name, e] : table_) {
    for (int r = 0; r < size_; ++r) {
      if (e.present[static_cast<size_t>(r)]) out[name].push_back(r);
    }
  }
  return out;
}

}  // namespace hvd::control
