// SPDX-License-Identifier: Apache-2.0
#include "profile/profile_cross_checks.h"

#include <regex>
#include <set>
#include <string>

#include "hvd/error.h"

namespace hvd::launcher::profile {

YAML::Node value_at(const YAML::Node& root, const char* section, const char* key) {
  const YAML::Node sec = root[section];
  return sec && sec.IsMap() ? sec[key] : YAML::Node(YAML::NodeType::Undefined);
}

namespace {

void check_per_gpu(const Reader& r, const YAML::Node& root, const char* section, const char* key,
                   size_t entries, int gpus) {
  if (entries == 0 || entries == static_cast<size_t>(gpus)) return;
  r.fail(join_key(section, key), value_at(root, section, key),
         str_cat("has ", entries, entries == 1 ? " entry" : " entries", " but node.gpus is ", gpus,
                 "; give one per GPU"));
}

void check_gpus(const Reader& r, const YAML::Node& root, const SiteProfile& s) {
  const int gpus = s.gpus_per_node;
  if (gpus > 0 && s.gpu_vendor == "none") {
    const YAML::Node vendor = value_at(root, "node", "gpu_vendor");
    if (vendor) r.fail("node.gpu_vendor", vendor, str_cat("is none but node.gpus is ", gpus));
    r.fail("node.gpus", value_at(root, "node", "gpus"),
           str_cat("is ", gpus, " but node.gpu_vendor is not given; say nvidia or amd"));
  }
  check_per_gpu(r, root, "node", "gpu_numa", s.gpu_numa.size(), gpus);
  check_per_gpu(r, root, "node", "gpu_cpus", s.gpu_cpus.size(), gpus);
  check_per_gpu(r, root, "binding", "gpu_order", s.gpu_order.size(), gpus);
  for (size_t i = 0; i < s.gpu_numa.size(); ++i) {
    if (s.gpu_numa[i] < s.numa_domains) continue;
    r.fail(str_cat("node.gpu_numa[", i, "]"), value_at(root, "node", "gpu_numa")[i],
           str_cat("NUMA domain ", s.gpu_numa[i], " does not exist; node.numa_domains is ",
                   s.numa_domains));
  }
  std::set<int> seen;
  for (size_t i = 0; i < s.gpu_order.size(); ++i) {
    const int g = s.gpu_order[i];
    const std::string p = str_cat("binding.gpu_order[", i, "]");
    const YAML::Node n = value_at(root, "binding", "gpu_order")[i];
    if (g >= gpus) r.fail(p, n, str_cat("GPU ", g, " does not exist; GPUs are 0..", gpus - 1));
    if (!seen.insert(g).second) r.fail(p, n, str_cat("GPU ", g, " is listed twice"));
  }
}

// gpu_request may use {gpus} and {gpu_type}; an empty one asks for no GPUs.
void check_gpu_request(const Reader& r, const YAML::Node& root, const SiteProfile& s) {
  const std::string& req = s.gpu_request;
  const auto fail = [&](const std::string& what) {
    r.fail("scheduler.gpu_request", value_at(root, "scheduler", "gpu_request"), what);
  };
  if (!req.empty() && req.find("{gpus}") == std::string::npos) fail("must contain {gpus}");
  static const std::regex placeholder(R"(\{([^}]*)\})");
  for (std::sregex_iterator it(req.begin(), req.end(), placeholder), end; it != end; ++it) {
    const std::string name = (*it)[1];
    if (name != "gpus" && name != "gpu_type") {
      fail(str_cat("unknown placeholder {", name, "}; use {gpus} and {gpu_type}"));
    }
    if (name == "gpu_type" && s.gpu_type.empty()) {
      fail("uses {gpu_type} but scheduler.gpu_type is not set");
    }
  }
}

void check_scheduler(const Reader& r, const YAML::Node& root, const SiteProfile& s) {
  check_gpu_request(r, root, s);
  if (s.partition.empty() || s.partitions.empty()) return;
  std::string names;
  for (const Partition& p : s.partitions) {
    if (p.name == s.partition) return;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  r.fail("scheduler.partition", value_at(root, "scheduler", "partition"),
         str_cat("'", s.partition, "' is not among scheduler.partitions (", names, ")"));
}

void check_env(const Reader& r, const YAML::Node& root, const SiteProfile& s) {
  for (size_t i = 0; i < s.env.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (s.env[j].name != s.env[i].name) continue;
      const std::string p = str_cat("env[", i, "].name");
      r.fail(p, root["env"][i]["name"], str_cat(s.env[i].name, " is already set by env[", j, "]"));
    }
  }
  const int port = s.master_port_base;
  if (port != 0 && port < 1024) {
    r.fail("rendezvous.master_port_base", value_at(root, "rendezvous", "master_port_base"),
           str_cat(port, " is a privileged port; use 1024..55535, or 0 for hvdrun's default"));
  }
}

}  // namespace

void check_across_keys(const Reader& r, const YAML::Node& root, const SiteProfile& s) {
  check_gpus(r, root, s);
  check_scheduler(r, root, s);
  check_env(r, root, s);
}

}  // namespace hvd::launcher::profile
