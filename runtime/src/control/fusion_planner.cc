// SPDX-License-Identifier: Apache-2.0
#include "control/fusion_planner.h"

#include <map>

#include "hvd/error.h"

namespace hvd::control {
namespace {

bool fusible(const Response& r) {
  return r.kind == Response::Kind::kRun && r.type == OpType::kAllreduce;
}

bool compatible(const Response& a, const Response& b) {
  return a.dtype == b.dtype && a.op == b.op && a.device == b.device && a.prescale == b.prescale &&
         a.postscale == b.postscale;
}

// `out` becomes `head` with no tensors yet: every field assigned, so that one added to
// Response is never left out; only its name strings are kept, to be assigned over.
void start_fused(Response& out, const Response& head) {
  std::vector<std::string> names;
  names.swap(out.names);
  out = head;
  out.names.swap(names);
  out.counts.clear();
}

// Appends r's tensors at out.names[used...]: a name string already there is assigned over,
// which reuses its memory where a push_back after clear() would allocate it again.
void append_tensors(Response& out, size_t& used, const Response& r) {
  for (const std::string& name : r.names) {
    if (used < out.names.size()) {
      out.names[used] = name;
    } else {
      out.names.push_back(name);
    }
    ++used;
  }
  out.counts.insert(out.counts.end(), r.counts.begin(), r.counts.end());
}

Response& next_slot(std::vector<Response>& plan, size_t& used) {
  if (used == plan.size()) plan.emplace_back();
  return plan[used++];
}

}  // namespace

size_t response_bytes(const Response& r) {
  size_t elements = 0;
  for (int64_t c : r.counts) elements += static_cast<size_t>(c);
  return elements * dtype_size(r.dtype);
}

void FusionPlanner::find_units(const std::vector<const Response*>& ready) {
  // A group's members travel as one unit, at the place of the first member.
  unit_heads_.clear();
  next_member_.assign(ready.size(), kNone);
  std::map<int32_t, size_t> last_of_group;  // stays empty, unallocated, without groups
  for (size_t i = 0; i < ready.size(); ++i) {
    const Response& r = *ready[i];
    if (r.group < 0 || !fusible(r)) {
      unit_heads_.push_back(i);
      continue;
    }
    const auto it = last_of_group.find(r.group);
    if (it == last_of_group.end()) {
      last_of_group.emplace(r.group, i);
      unit_heads_.push_back(i);
    } else {
      HVD_CHECK(compatible(*ready[it->second], r), "group ", r.group,
                " mixes incompatible tensors");
      next_member_[it->second] = i;
      it->second = i;
    }
  }
  unit_bytes_.clear();
  for (size_t head : unit_heads_) {
    size_t bytes = 0;
    for (size_t m = head; m != kNone; m = next_member_[m]) bytes += response_bytes(*ready[m]);
    unit_bytes_.push_back(bytes);
  }
}

void FusionPlanner::plan(const std::vector<const Response*>& ready, size_t threshold_bytes,
                         std::vector<Response>& plan) {
  find_units(ready);
  placed_.assign(unit_heads_.size(), 0);
  size_t planned = 0;
  for (size_t u = 0; u < unit_heads_.size(); ++u) {
    if (placed_[u] != 0) continue;
    placed_[u] = 1;
    const Response& head = *ready[unit_heads_[u]];
    Response& out = next_slot(plan, planned);
    if (!fusible(head)) {
      out = head;
      continue;
    }
    start_fused(out, head);
    size_t names = 0;
    const auto append_unit = [&](size_t unit) {
      for (size_t m = unit_heads_[unit]; m != kNone; m = next_member_[m]) {
        append_tensors(out, names, *ready[m]);
      }
    };
    append_unit(u);
    size_t bytes = unit_bytes_[u];
    for (size_t v = u + 1; v < unit_heads_.size(); ++v) {
      const Response& other = *ready[unit_heads_[v]];
      if (placed_[v] != 0 || !fusible(other) || !compatible(head, other)) continue;
      if (bytes + unit_bytes_[v] > threshold_bytes) continue;  // a later, smaller one may fit
      append_unit(v);
      bytes += unit_bytes_[v];
      placed_[v] = 1;
    }
    out.names.resize(names);
  }
  plan.erase(plan.begin() + static_cast<std::ptrdiff_t>(planned), plan.end());
}

std::vector<Response> plan_fusion(const std::vector<Response>& ready, size_t threshold_bytes) {
  std::vector<const Response*> refs;
  refs.reserve(ready.size());
  for (const Response& r : ready) refs.push_back(&r);
  std::vector<Response> plan;
  FusionPlanner().plan(refs, threshold_bytes, plan);
  return plan;
}

}  // namespace hvd::control
