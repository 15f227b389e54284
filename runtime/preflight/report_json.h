// SPDX-License-Identifier: Apache-2.0
#pragma once
// hvd-preflight's report, as rank 0 writes it ("tool": "hvd-preflight"); `hvdrun preflight`
// reads it (launcher/src/preflight/preflight_report.h).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "preflight/collective_timing.h"
#include "preflight/node_layout.h"
#include "preflight/probe_record.h"

namespace hvd::preflight {

struct Measurements {
  std::vector<ProbeRecord> ranks;              // index = rank
  std::vector<std::string> nic_names;          // the profile's, in ProbeRecord's bit order
  std::vector<Node> nodes;
  CollectiveTiming all;                        // every rank
  std::vector<MeasuredSet> node_sets;          // with node_timings[i] for node_sets[i]
  std::vector<CollectiveTiming> node_timings;
  std::vector<MeasuredSet> link_sets;          // with link_timings[i]
  std::vector<CollectiveTiming> link_timings;
  double seconds = 0;                          // rank 0's wall time from init to the report
};

nlohmann::json to_json(const Measurements& m);

}  // namespace hvd::preflight
