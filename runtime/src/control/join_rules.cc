// SPDX-License-Identifier: Apache-2.0
#include "control/join_rules.h"

#include "hvd/str_cat.h"

namespace hvd::control {

bool can_run_with_joined(OpType type, ReduceOp /*op*/, Device device) {
  return type == OpType::kAllreduce && device.is_cpu();
}

std::string join_problem(const Request& request, const std::vector<int>& joined) {
  if (can_run_with_joined(request.type, request.op, request.device)) return {};
  std::string ranks;
  for (int r : joined) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  const std::string head =
      str_cat(op_type_name(request.type), " '", request.name, "' cannot run while rank(s) ", ranks,
              " have joined (hvd.join): ");
  if (request.type != OpType::kAllreduce) {
    return head + "only allreduce runs with joined ranks, as in Horovod";
  }
  return head +
         "a joined rank contributes zeros in host memory only; join supports CPU tensors so far";
}

}  // namespace hvd::control
