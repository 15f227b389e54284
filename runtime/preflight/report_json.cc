// SPDX-License-Identifier: Apache-2.0
#include "preflight/report_json.h"

#include <algorithm>

namespace hvd::preflight {
namespace {

nlohmann::json timing_json(const CollectiveTiming& t) {
  return {{"latency_us", t.latency_us}, {"busbw_gbps", t.busbw_gbps}, {"bytes", t.bytes}};
}

nlohmann::json rank_json(const ProbeRecord& r, const std::vector<std::string>& nic_names) {
  nlohmann::json nics = nlohmann::json::object();
  for (size_t i = 0; i < nic_names.size() && i < static_cast<size_t>(kMaxNics); ++i) {
    nics[nic_names[i]] = ((r.nics_present >> i) & 1U) != 0;
  }
  return {{"rank", r.rank},
          {"host", std::string(r.host)},
          {"gpus", r.visible_gpus},
          {"gpu_model", std::string(r.gpu_model)},
          {"gpu_id", std::string(r.gpu_id)},
          {"nics", nics},
          {"clock_offset_ms", r.clock_offset_ms},
          {"clock_rtt_ms", r.clock_rtt_ms},
          {"memory_gbps", r.memory_gbps}};
}

// A node's figures: its ranks' memory bandwidth added up (they ran at once), its leader's clock.
nlohmann::json node_json(const Measurements& m, size_t index) {
  const Node& node = m.nodes[index];
  double memory = 0;
  int gpus = 0;
  int node_gpus = -1;  // the driver's count; the same for every rank of the node
  nlohmann::json gpu_ids = nlohmann::json::array();  // per rank, in "ranks" order
  for (int r : node.ranks) {
    memory += m.ranks[r].memory_gbps;
    gpus += m.ranks[r].visible_gpus;
    gpu_ids.push_back(std::string(m.ranks[r].gpu_id));
    node_gpus = std::max(node_gpus, m.ranks[r].node_gpus);
  }
  const ProbeRecord& leader = m.ranks[node.ranks.front()];
  nlohmann::json j = {{"host", node.host},
                      {"ranks", node.ranks},
                      {"gpus", gpus},
                      {"gpu_model", std::string(leader.gpu_model)},
                      {"gpu_ids", gpu_ids},
                      {"node_gpus", node_gpus},
                      {"clock_offset_ms", leader.clock_offset_ms},
                      {"clock_rtt_ms", leader.clock_rtt_ms},
                      {"memory_gbps", memory},
                      {"intra", nullptr}};
  nlohmann::json missing = nlohmann::json::array();
  for (size_t i = 0; i < m.nic_names.size() && i < static_cast<size_t>(kMaxNics); ++i) {
    const bool everywhere = std::all_of(node.ranks.begin(), node.ranks.end(), [&](int r) {
      return ((m.ranks[r].nics_present >> i) & 1U) != 0;
    });
    if (!everywhere) missing.push_back(m.nic_names[i]);
  }
  j["missing_nics"] = missing;
  for (size_t s = 0; s < m.node_sets.size(); ++s) {
    if (m.node_sets[s].a == static_cast<int>(index)) j["intra"] = timing_json(m.node_timings[s]);
  }
  return j;
}

}  // namespace

nlohmann::json to_json(const Measurements& m) {
  nlohmann::json j = {{"tool", "hvd-preflight"}, {"version", 1},
                      {"size", m.ranks.size()},  {"seconds", m.seconds},
                      {"nic_names", m.nic_names}, {"all", timing_json(m.all)}};
  j["nodes"] = nlohmann::json::array();
  for (size_t i = 0; i < m.nodes.size(); ++i) j["nodes"].push_back(node_json(m, i));
  j["links"] = nlohmann::json::array();
  for (size_t i = 0; i < m.link_sets.size(); ++i) {
    nlohmann::json link = timing_json(m.link_timings[i]);
    link["a"] = m.nodes[m.link_sets[i].a].host;
    link["b"] = m.nodes[m.link_sets[i].b].host;
    j["links"].push_back(link);
  }
  j["rank_details"] = nlohmann::json::array();
  for (const ProbeRecord& r : m.ranks) j["rank_details"].push_back(rank_json(r, m.nic_names));
  return j;
}

}  // namespace hvd::preflight
