// SPDX-License-Identifier: Apache-2.0
// A build without CUDA cannot ask a GPU its name; it counts what the launcher made visible.
#include "preflight/gpu_probe.h"

#include <string>

#include "env/env.h"
#include "hvd/env_keys.h"

namespace hvd::preflight {

GpuProbe probe_gpus() {
  GpuProbe probe;
  probe.model = "no CUDA";
  const std::string visible = env_string(process_env(), env::kCudaVisibleDevices, "");
  if (visible.empty()) return probe;
  probe.count = 1;
  for (char c : visible) probe.count += c == ',' ? 1 : 0;
  probe.id = visible.substr(0, visible.find(','));
  return probe;
}

}  // namespace hvd::preflight
