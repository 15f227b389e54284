// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `local` site profile, compiled in so hvdrun works with no profile installed. It must equal
// site-profiles/local.yaml byte for byte (profile_loader_test checks): edit both together.

namespace hvd::launcher::profile {

inline constexpr const char* kEmbeddedLocalYaml =
    R"yaml(# This machine, without a scheduler: what `hvdrun -np N -- PROGRAM` uses outside Slurm.
# hvdrun carries a copy of this file (launcher/src/profile/embedded_local.h), so it works with
# no profile installed; a unit test keeps the two identical.
name: local
description: "This machine, no scheduler: hvdrun finds its GPUs and CPUs when it runs"
node:
  gpus: 0            # nothing assumed; hvdrun counts the GPUs it can see at launch
  gpu_vendor: none
)yaml";

}  // namespace hvd::launcher::profile
