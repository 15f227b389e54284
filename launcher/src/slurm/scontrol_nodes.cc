// SPDX-License-Identifier: Apache-2.0
#include "slurm/scontrol_nodes.h"

#include <algorithm>
#include <cctype>

namespace hvd::launcher::slurm {
namespace {

// The value of `key` (e.g. "NodeAddr=") in `text`, where the key starts a word.
std::string field(std::string_view text, std::string_view key) {
  for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    if (at > 0 && !std::isspace(static_cast<unsigned char>(text[at - 1]))) continue;
    const size_t start = at + key.size();
    const size_t end = text.find_first_of(" \t\n", start);
    return std::string(text.substr(start, end == std::string_view::npos ? end : end - start));
  }
  return {};
}

// Where each record starts: "NodeName=" at the start of a line.
std::vector<size_t> record_starts(std::string_view text) {
  constexpr std::string_view kKey = "NodeName=";
  std::vector<size_t> starts;
  for (size_t at = text.find(kKey); at != std::string_view::npos; at = text.find(kKey, at + 1)) {
    if (at == 0 || text[at - 1] == '\n') starts.push_back(at);
  }
  return starts;
}

}  // namespace

std::map<std::string, std::string> parse_node_addrs(std::string_view scontrol_output) {
  std::map<std::string, std::string> addrs;
  const std::vector<size_t> starts = record_starts(scontrol_output);
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t end = i + 1 < starts.size() ? starts[i + 1] : scontrol_output.size();
    const std::string_view record = scontrol_output.substr(starts[i], end - starts[i]);
    std::string name = field(record, "NodeName=");
    std::string addr = field(record, "NodeAddr=");
    if (!name.empty() && !addr.empty()) addrs.emplace(std::move(name), std::move(addr));
  }
  return addrs;
}

std::vector<std::string> nodes_to_query(const std::string& node,
                                        const std::vector<std::string>& job_nodes,
                                        const std::map<std::string, std::string>& known,
                                        size_t limit) {
  std::vector<std::string> nodes = {node};
  if (std::find(job_nodes.begin(), job_nodes.end(), node) == job_nodes.end()) return nodes;
  for (const std::string& other : job_nodes) {
    if (nodes.size() >= limit) break;
    if (other == node || known.count(other) > 0) continue;
    if (std::find(nodes.begin(), nodes.end(), other) == nodes.end()) nodes.push_back(other);
  }
  return nodes;
}

}  // namespace hvd::launcher::slurm
