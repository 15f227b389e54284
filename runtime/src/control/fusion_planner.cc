// SPDX-License-Identifier: Apache-2.0
#include "control/fusion_planner.h"

#include <iterator>
#include <map>
#include <utility>

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

void append(Response& into, Response&& r) {
  into.names.insert(into.names.end(), std::make_move_iterator(r.names.begin()),
                    std::make_move_iterator(r.names.end()));
  into.counts.insert(into.counts.end(), r.counts.begin(), r.counts.end());
}

// A group's members travel as one unit: merge them first, at the place of the first member.
std::vector<Response> merge_groups(std::vector<Response> ready) {
  std::vector<Response> units;
  units.reserve(ready.size());
  std::map<int32_t, size_t> unit_of_group;
  for (Response& r : ready) {
    if (r.group < 0 || !fusible(r)) {
      units.push_back(std::move(r));
      continue;
    }
    const auto it = unit_of_group.find(r.group);
    if (it == unit_of_group.end()) {
      unit_of_group[r.group] = units.size();
      units.push_back(std::move(r));
    } else {
      HVD_CHECK(compatible(units[it->second], r), "group ", r.group, " mixes incompatible tensors");
      append(units[it->second], std::move(r));
    }
  }
  return units;
}

}  // namespace

size_t response_bytes(const Response& r) {
  size_t elements = 0;
  for (int64_t c : r.counts) elements += static_cast<size_t>(c);
  return elements * dtype_size(r.dtype);
}

std::vector<Response> plan_fusion(std::vector<Response> ready, size_t threshold_bytes) {
  std::vector<Response> units = merge_groups(std::move(ready));
  std::vector<bool> placed(units.size(), false);
  std::vector<Response> plan;
  for (size_t i = 0; i < units.size(); ++i) {
    if (placed[i]) continue;
    placed[i] = true;
    Response fused = std::move(units[i]);
    if (fusible(fused)) {
      size_t bytes = response_bytes(fused);
      for (size_t j = i + 1; j < units.size(); ++j) {
        if (placed[j] || !fusible(units[j]) || !compatible(fused, units[j])) continue;
        const size_t more = response_bytes(units[j]);
        if (bytes + more > threshold_bytes) continue;  // a later, smaller one may still fit
        append(fused, std::move(units[j]));
        bytes += more;
        placed[j] = true;
      }
    }
    plan.push_back(std::move(fused));
  }
  return plan;
}

}  // namespace hvd::control
