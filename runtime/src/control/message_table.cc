// SPDX-License-Identifier: Apache-2.0
#include "control/message_table.h"

#include <functional>
#include <sstream>

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
  for (const Request& r : rs) {
    if (value(r) == first) continue;
    ranks += (ranks.empty() ? "" : ", ") + std::to_string(r.rank);
    if (theirs.empty()) theirs = value(r);
  }
  if (ranks.empty()) return {};
  return str_cat("mismatched ", what, " for tensor '", rs[0].name, "': rank 0 has ", first,
                 ", rank(s) ", ranks, " have ", theirs, " (first difference shown)");
}

std::vector<int64_t> tail_dims(const std::vector<int64_t>& shape) {
  return shape.empty() ? shape : std::vector<int64_t>(shape.begin() + 1, shape.end());
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
  // Alltoall splits rows evenly and so needs the same shape everywhere (uneven splits would
  // need the receive counts negotiated too).
  if (type == OpType::kAllreduce || type == OpType::kBroadcast || type == OpType::kReducescatter ||
      type == OpType::kAlltoall) {
    checks.push_back({"shapes", [](const Request& r) { return shape_text(r.shape); }});
  }
  if (type == OpType::kAllgather) {
    checks.push_back({"shapes after the first dimension",
                      [](const Request& r) { return shape_text(tail_dims(r.shape)); }});
  }
  if (type == OpType::kBroadcast) {
    checks.push_back({"root ranks", [](const Request& r) { return std::to_string(r.root); }});
  }
  for (const Check& c : checks) {
    if (std::string why = differ(rs, c.first, c.second); !why.empty()) return why;
  }
  return {};
}

MessageTable::MessageTable(int size) : size_(size) { HVD_CHECK(size > 0, "world size ", size); }

bool MessageTable::add(const Request& request) {
  HVD_CHECK(request.rank >= 0 && request.rank < size_, "request from rank ", request.rank);
  Entry& e = table_[request.name];
  if (e.present.empty()) {
    e.requests.resize(static_cast<size_t>(size_));
    e.present.assign(static_cast<size_t>(size_), false);
  }
  const size_t r = static_cast<size_t>(request.rank);
  if (e.present[r]) {
    e.duplicates.push_back(request.rank);
    return e.count == size_;
  }
  e.present[r] = true;
  e.requests[r] = request;
  ++e.count;
  return e.count == size_;
}

Response MessageTable::take_response(const std::string& name) {
  auto it = table_.find(name);
  HVD_CHECK(it != table_.end() && it->second.count == size_, "tensor '", name, "' is not complete");
  const Entry e = std::move(it->second);
  table_.erase(it);
  const Request& first = e.requests[0];
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
  int64_t count = 1;
  for (int64_t d : first.shape) count *= d;
  r.counts = {count};
  if (!e.duplicates.empty()) {
    r.kind = Response::Kind::kError;
    r.error = str_cat("tensor '", name, "' was submitted twice by rank ", e.duplicates[0],
                      " before the first one completed; names must be unique while in flight");
    return r;
  }
  std::string why = check_agreement(e.requests);
  if (why.empty() && r.type == OpType::kAlltoall &&
      (first.shape.empty() || first.shape[0] % size_ != 0)) {
    // Each rank gets rows/size rows from every rank; uneven splits would need the receive
    // counts negotiated as well (Horovod's `splits`), which this runtime does not do.
    why = str_cat("alltoall '", name, "': the first dimension (",
                  first.shape.empty() ? int64_t{0} : first.shape[0],
                  ") must be a multiple of the number of ranks (", size_,
                  "); uneven splits are not supported");
  }
  if (!why.empty()) {
    r.kind = Response::Kind::kError;
    r.error = why;
    return r;
  }
  if (first.type == OpType::kAllgather) {
    for (const Request& q : e.requests) r.first_dims.push_back(q.shape.empty() ? 1 : q.shape[0]);
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
