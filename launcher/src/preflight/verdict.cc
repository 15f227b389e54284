// SPDX-License-Identifier: Apache-2.0
#include "preflight/verdict.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "util/json_fields.h"

namespace hvd::launcher::preflight {
namespace {

// judge() gets the parsed report, not its path; errors name it by what wrote it.
const std::string kReportName = "hvd-preflight's report";

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", digits, value);
  return text;
}

// "memory 3.1 GB/s < 0.7 x median 9.8"
std::string below(const char* what, double value, double threshold, double med, const char* unit) {
  return str_cat(what, " ", fixed(value, 2), " ", unit, " < ", fixed(threshold, 2), " x median ",
                 fixed(med, 2));
}

// Figures hvd-preflight measured: never negative, and far below these bounds on any machine.
constexpr double kMaxFigure = 1e15;
constexpr int64_t kMaxCount = 10000000;

std::vector<std::string> texts(const util::JsonField& list) {
  std::vector<std::string> out;
  for (const util::JsonField& item : list.elements(kMaxCount)) out.push_back(item.text());
  return out;
}

NodeVerdict node_of(const util::JsonField& n) {
  NodeVerdict v;
  v.host = n.at("host").text(255);
  for (const util::JsonField& rank : n.at("ranks").elements(kMaxCount)) {
    v.rank_ids.push_back(static_cast<int>(rank.whole(0, kMaxCount)));
  }
  if (n.has("gpu_ids")) v.gpu_ids = texts(n.at("gpu_ids"));
  v.node_gpus = static_cast<int>(n.whole_or("node_gpus", -1, -1, kMaxCount));
  v.gpus = static_cast<int>(n.at("gpus").whole(0, kMaxCount));
  v.gpu_model = n.text_or("gpu_model", "");
  v.missing_nics = texts(n.at("missing_nics"));
  v.clock_offset_ms = n.at("clock_offset_ms").number(-kMaxFigure, kMaxFigure);
  v.clock_rtt_ms = n.at("clock_rtt_ms").number(0, kMaxFigure);
  v.memory_gbps = n.at("memory_gbps").number(0, kMaxFigure);
  if (n.has("intra")) {
    v.intra_busbw_gbps = n.at("intra").at("busbw_gbps").number(0, kMaxFigure);
    v.intra_latency_us = n.at("intra").at("latency_us").number(0, kMaxFigure);
  }
  return v;
}

LinkVerdict link_of(const util::JsonField& l) {
  return {l.at("a").text(255),
          l.at("b").text(255),
          l.at("latency_us").number(0, kMaxFigure),
          l.at("busbw_gbps").number(0, kMaxFigure),
          {}};
}

Medians medians_of(const Verdict& v) {
  std::vector<double> memory, intra, busbw, latency;
  for (const NodeVerdict& n : v.nodes) {
    memory.push_back(n.memory_gbps);
    if (n.intra_busbw_gbps >= 0) intra.push_back(n.intra_busbw_gbps);
  }
  for (const LinkVerdict& l : v.links) {
    busbw.push_back(l.busbw_gbps);
    latency.push_back(l.latency_us);
  }
  return {median(memory), median(intra), median(busbw), median(latency)};
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// GPU binding: two ranks of the node on one GPU. Named once per shared GPU.
void judge_gpu_sharing(NodeVerdict& n) {
  for (size_t i = 0; i < n.gpu_ids.size() && i < n.rank_ids.size(); ++i) {
    if (n.gpu_ids[i].empty()) continue;
    for (size_t k = 0; k < i; ++k) {
      if (n.gpu_ids[k] != n.gpu_ids[i]) continue;
      n.reasons.push_back(str_cat("ranks ", n.rank_ids[k], " and ", n.rank_ids[i], " share GPU ",
                                  n.gpu_ids[i]));
      break;
    }
  }
}

void judge_node(NodeVerdict& n, const Verdict& v, const NodeExpectation& expected) {
  const double t = v.threshold;
  for (const std::string& nic : n.missing_nics) n.reasons.push_back("NIC " + nic + " missing");
  if (n.gpus > 0 && !expected.gpu_model.empty() &&
      lower(n.gpu_model).find(lower(expected.gpu_model)) == std::string::npos) {
    n.reasons.push_back(str_cat("GPU model '", n.gpu_model, "', profile: '", expected.gpu_model, "'"));
  }
  judge_gpu_sharing(n);
  if (expected.gpus > 0 && n.node_gpus > 0 && n.node_gpus != expected.gpus) {
    n.reasons.push_back(str_cat(n.node_gpus, " GPUs on the node (NVIDIA driver), profile: ",
                                expected.gpus));
  }
  if (expected.gpus > 0 && n.gpus == 0) {
    // The probe's model text carries the CUDA runtime's error when it had one.
    const bool said_why = !n.gpu_model.empty() && n.gpu_model != "no CUDA";
    n.reasons.push_back(str_cat("no GPU visible (profile: ", expected.gpus, " per node",
                                said_why ? "; " + n.gpu_model : std::string(), ")"));
  }
  if (std::abs(n.clock_offset_ms) - n.clock_rtt_ms / 2 > kClockSkewLimitMs) {
    n.reasons.push_back(str_cat("clock off by ", fixed(n.clock_offset_ms, 1), " ms"));
  }
  if (n.memory_gbps < t * v.medians.memory_gbps) {
    n.reasons.push_back(below("memory", n.memory_gbps, t, v.medians.memory_gbps, "GB/s"));
  }
  if (n.intra_busbw_gbps >= 0 && n.intra_busbw_gbps < t * v.medians.intra_busbw_gbps) {
    n.reasons.push_back(
        below("intra-node busbw", n.intra_busbw_gbps, t, v.medians.intra_busbw_gbps, "GB/s"));
  }
  int links = 0, slow = 0;
  for (const LinkVerdict& l : v.links) {
    if (l.a != n.host && l.b != n.host) continue;
    ++links;
    slow += l.reasons.empty() ? 0 : 1;
  }
  if (links >= 2 && slow == links) n.reasons.push_back(str_cat("all ", links, " links slow"));
}

}  // namespace

bool Verdict::anything_flagged() const {
  return !flagged_hosts.empty() ||
         std::any_of(links.begin(), links.end(), [](const LinkVerdict& l) { return !l.reasons.empty(); });
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

Verdict judge(const nlohmann::json& report, double threshold, const NodeExpectation& expected) {
  if (!(threshold > 0 && threshold <= 1)) {
    throw UsageError(str_cat("--threshold: must be in (0, 1], got ", threshold));
  }
  const util::JsonField doc(kReportName, report);
  // A "tool" of the wrong type is named as a field; a missing one says what file this is not.
  if (!report.is_object() || !report.contains("tool") || doc.at("tool").text() != "hvd-preflight") {
    throw ConfigError("not an hvd-preflight report (no \"tool\": \"hvd-preflight\")");
  }
  Verdict v;
  v.threshold = threshold;
  for (const util::JsonField& n : doc.at("nodes").elements(kMaxCount))
    v.nodes.push_back(node_of(n));
  for (const util::JsonField& l : doc.at("links").elements(kMaxCount))
    v.links.push_back(link_of(l));
  v.all_latency_us = doc.at("all").at("latency_us").number(0, kMaxFigure);
  v.all_busbw_gbps = doc.at("all").at("busbw_gbps").number(0, kMaxFigure);
  v.seconds = doc.number_or("seconds", 0.0, 0, kMaxFigure);
  v.medians = medians_of(v);
  for (LinkVerdict& l : v.links) {
    if (l.busbw_gbps < threshold * v.medians.link_busbw_gbps) {
      l.reasons.push_back(below("busbw", l.busbw_gbps, threshold, v.medians.link_busbw_gbps, "GB/s"));
    }
    if (l.latency_us > v.medians.link_latency_us / threshold) {
      l.reasons.push_back(str_cat("latency ", fixed(l.latency_us, 1), " us > median ",
                                  fixed(v.medians.link_latency_us, 1), " / ", fixed(threshold, 2)));
    }
  }
  for (NodeVerdict& n : v.nodes) {
    judge_node(n, v, expected);
    if (!n.reasons.empty()) v.flagged_hosts.push_back(n.host);
  }
  return v;
}

nlohmann::json to_json(const Verdict& v) {
  nlohmann::json j = {{"tool", "hvdrun preflight"},
                      {"threshold", v.threshold},
                      {"seconds", v.seconds},
                      {"all", {{"latency_us", v.all_latency_us}, {"busbw_gbps", v.all_busbw_gbps}}},
                      {"medians",
                       {{"memory_gbps", v.medians.memory_gbps},
                        {"intra_busbw_gbps", v.medians.intra_busbw_gbps},
                        {"link_busbw_gbps", v.medians.link_busbw_gbps},
                        {"link_latency_us", v.medians.link_latency_us}}},
                      {"flagged_hosts", v.flagged_hosts}};
  j["nodes"] = nlohmann::json::array();
  for (const NodeVerdict& n : v.nodes) {
    j["nodes"].push_back({{"host", n.host}, {"ranks", n.rank_ids.size()}, {"gpus", n.gpus},
                          {"gpu_model", n.gpu_model}, {"gpu_ids", n.gpu_ids},
                          {"node_gpus", n.node_gpus},
                          {"missing_nics", n.missing_nics},
                          {"clock_offset_ms", n.clock_offset_ms}, {"clock_rtt_ms", n.clock_rtt_ms},
                          {"memory_gbps", n.memory_gbps},
                          {"intra_busbw_gbps", n.intra_busbw_gbps},
                          {"intra_latency_us", n.intra_latency_us}, {"flagged", !n.reasons.empty()},
                          {"reasons", n.reasons}});
  }
  j["links"] = nlohmann::json::array();
  for (const LinkVerdict& l : v.links) {
    j["links"].push_back({{"a", l.a}, {"b", l.b}, {"latency_us", l.latency_us},
                          {"busbw_gbps", l.busbw_gbps}, {"flagged", !l.reasons.empty()},
                          {"reasons", l.reasons}});
  }
  return j;
}

}  // namespace hvd::launcher::preflight
