// SPDX-License-Identifier: Apache-2.0
#include "profile/profile_guards.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "hvd/error.h"

namespace hvd::launcher::profile {
namespace {

// A flag of `flags` named `name`, with its value ("--x=v", or "--x" "v"), as typed.
struct FlagUse {
  std::string typed;  // for messages: "--gpu-bind=map_gpu:0,1"
  std::string value;  // empty when the flag came last without a value
};

std::optional<FlagUse> find_flag(const std::vector<std::string>& flags, const std::string& name,
                                 bool (*refused)(const std::string& value)) {
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& f = flags[i];
    FlagUse use;
    if (f.rfind(name + "=", 0) == 0) {
      use = {f, f.substr(name.size() + 1)};
    } else if (f == name) {
      const bool has_value = i + 1 < flags.size() && flags[i + 1].rfind('-', 0) != 0;
      use = has_value ? FlagUse{f + " " + flags[i + 1], flags[i + 1]} : FlagUse{f, ""};
    } else {
      continue;
    }
    if (refused(use.value)) return use;
  }
  return std::nullopt;
}

bool always(const std::string&) { return true; }

// --gpu-bind=[verbose,]TYPE: only "none" leaves every rank all of the node's GPUs.
bool binds_gpus(const std::string& value) {
  std::string type = value;
  if (type.rfind("verbose,", 0) == 0) type = type.substr(8);
  return type != "none";
}

// --tres-bind=gres/gpu:TYPE is --gpu-bind under another name.
bool tres_binds_gpus(const std::string& value) {
  const std::string prefix = "gres/gpu:";
  return value.rfind(prefix, 0) == 0 && binds_gpus(value.substr(prefix.size()));
}

void no_gpus_per_task(const SiteProfile& p, const GuardContext& c) {
  std::optional<FlagUse> use = find_flag(c.srun_flags, "--gpus-per-task", always);
  if (!use) use = find_flag(c.srun_flags, "--gpu-bind", binds_gpus);
  if (!use) use = find_flag(c.srun_flags, "--tres-bind", tres_binds_gpus);
  if (!use) return;
  throw UsageError(str_cat(
      "site profile '", p.name, "' refuses ", use->typed, " (guard no_gpus_per_task): on ", p.name,
      ", per-task GPU binding confines each rank to its own GPU through cgroups, which "
      "breaks CUDA IPC and NVLink peer-to-peer between ranks (GPU-aware MPI fails with "
      "'cuIpcOpenMemHandle: invalid argument'); leave GPU binding to hvdrun, which sets ",
      p.gpu_env, " per rank and passes --gpu-bind=none"));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return s;
}

void nccl_net_needs_plugin(const SiteProfile& p, const GuardContext& c) {
  const std::string net = env_string(c.rank_env, "NCCL_NET", "");
  // IB and Socket are built into NCCL and RCCL; every other network comes from a plugin.
  if (net.empty() || lower(net) == "ib" || lower(net) == "socket") return;
  if (!env_string(c.rank_env, "NCCL_NET_PLUGIN", "").empty() || !p.net_plugin.empty()) return;
  throw ConfigError(str_cat(
      "site profile '", p.name, "' refuses NCCL_NET='", net,
      "' without a network plugin (guard nccl_net_needs_plugin): that network comes from a "
      "plugin, and NCCL/RCCL initialisation fails with \"network ",
      net,
      " not found\" when none is loaded; set NCCL_NET_PLUGIN, say where the profile's setup "
      "provides it (launch.net_plugin), or unset NCCL_NET"));
}

void no_mem_flag(const SiteProfile& p, const GuardContext& c) {
  const std::optional<FlagUse> use = find_flag(c.srun_flags, "--mem", always);
  if (!use) return;
  throw UsageError(str_cat("site profile '", p.name, "' refuses ", use->typed,
                           " (guard no_mem_flag): ", p.name,
                           " derives a job's memory from its tasks and CPUs per task and "
                           "rejects --mem; ask for more CPUs per task instead"));
}

struct Guard {
  const char* name;
  void (*check)(const SiteProfile&, const GuardContext&);
};

const Guard kGuards[] = {
    {"no_gpus_per_task", no_gpus_per_task},
    {"nccl_net_needs_plugin", nccl_net_needs_plugin},
    {"no_mem_flag", no_mem_flag},
};

}  // namespace

const std::vector<std::string>& known_guards() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Guard& g : kGuards) out.emplace_back(g.name);
    return out;
  }();
  return names;
}

void check_guards(const SiteProfile& profile, const GuardContext& context) {
  for (const std::string& name : profile.guards) {
    const auto it = std::find_if(std::begin(kGuards), std::end(kGuards),
                                 [&](const Guard& g) { return name == g.name; });
    if (it == std::end(kGuards)) {
      throw ConfigError(str_cat("site profile '", profile.name, "': unknown guard '", name, "'"));
    }
    it->check(profile, context);
  }
}

}  // namespace hvd::launcher::profile
