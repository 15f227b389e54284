// SPDX-License-Identifier: Apache-2.0
#include "check/horovod_layout.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace hvd::launcher::check {
namespace {

bool available(const std::vector<Feature>& features, const std::string& name) {
  return std::any_of(features.begin(), features.end(),
                     [&name](const Feature& f) { return f.name == name && f.available(); });
}

char box(bool on) { return on ? 'X' : ' '; }

}  // namespace

std::string format_horovod_text(const BuildReport& r) {
  const bool gloo_controller = available(r.controllers, "TCP");
  const bool gloo_ops = available(r.tensor_operations, "Built-in ring");
  std::ostringstream out;
  out << "Horovod v" << kHorovodApiVersion << ":\n\n"
      << "Available Frameworks:\n"
      << "    [" << box(available(r.frameworks, "TensorFlow")) << "] TensorFlow\n"
      << "    [" << box(available(r.frameworks, "PyTorch")) << "] PyTorch\n"
      << "    [" << box(available(r.frameworks, "MXNet")) << "] MXNet\n\n"
      << "Available Controllers:\n"
      << "    [" << box(available(r.controllers, "MPI")) << "] MPI\n"
      << "    [" << box(gloo_controller) << "] Gloo\n\n"
      << "Available Tensor Operations:\n"
      << "    [" << box(available(r.tensor_operations, "NCCL")) << "] NCCL\n"
      << "    [ ] DDL\n"
      << "    [ ] CCL\n"
      << "    [" << box(available(r.tensor_operations, "MPI")) << "] MPI\n"
      << "    [" << box(gloo_ops) << "] Gloo    \n";
  return out.str();
}

}  // namespace hvd::launcher::check
