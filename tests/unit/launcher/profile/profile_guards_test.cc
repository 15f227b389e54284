// SPDX-License-Identifier: Apache-2.0
#include "profile/profile_guards.h"

#include <doctest/doctest.h>

#include "hvd/error.h"
#include "profile/profile_loader.h"

namespace profile = hvd::launcher::profile;

namespace {

profile::SiteProfile site(const std::string& guard) {
  profile::SiteProfile p;
  p.name = "site";
  p.guards = {guard};
  return p;
}

profile::GuardContext flags(std::vector<std::string> srun_flags) {
  profile::GuardContext c;
  c.srun_flags = std::move(srun_flags);
  return c;
}

profile::GuardContext rank_env(hvd::launcher::EnvMap env) {
  profile::GuardContext c;
  c.rank_env = std::move(env);
  return c;
}

profile::SiteProfile shipped(const std::string& name) {
  const std::string dir = HVD_SOURCE_DIR "/site-profiles";
  return profile::load_profile_file(dir + "/" + name + ".yaml",
                                    [&](const std::string& n) { return dir + "/" + n + ".yaml"; });
}

}  // namespace

TEST_CASE("guards: the known names") {
  CHECK(profile::known_guards() ==
        std::vector<std::string>{"no_gpus_per_task", "nccl_net_needs_plugin", "no_mem_flag"});
}

TEST_CASE("guards: no_gpus_per_task refuses per-task GPU binding in any spelling") {
  const profile::SiteProfile p = site("no_gpus_per_task");
  CHECK_THROWS_WITH_AS(
      profile::check_guards(p, flags({"-N", "2", "--gpus-per-task=1"})),
      "site profile 'site' refuses --gpus-per-task=1 (guard no_gpus_per_task): on site, per-task "
      "GPU binding confines each rank to its own GPU through cgroups, which breaks CUDA IPC and "
      "NVLink peer-to-peer between ranks (GPU-aware MPI fails with 'cuIpcOpenMemHandle: invalid "
      "argument'); leave GPU binding to hvdrun, which sets CUDA_VISIBLE_DEVICES per rank and "
      "passes --gpu-bind=none",
      hvd::UsageError);
  const std::vector<std::vector<std::string>> refused = {{"--gpus-per-task", "1"},
                                                         {"--gpu-bind=map_gpu:0,1"},
                                                         {"--gpu-bind", "single:1"},
                                                         {"--gpu-bind=verbose,closest"},
                                                         {"--tres-bind=gres/gpu:map:0,1"}};
  for (const auto& f : refused) {
    CAPTURE(f[0]);
    CHECK_THROWS_AS(profile::check_guards(p, flags(f)), hvd::UsageError);
  }
  const std::vector<std::vector<std::string>> allowed = {{"--gpu-bind=none"},
                                                         {"--gpu-bind=verbose,none"},
                                                         {"--gpus-per-node=4"},
                                                         {"--tres-bind=gres/gpu:none"},
                                                         {}};
  for (const auto& f : allowed) CHECK_NOTHROW(profile::check_guards(p, flags(f)));
  CHECK_NOTHROW(profile::check_guards(site("no_mem_flag"), flags({"--gpus-per-task=1"})));
}

TEST_CASE("guards: nccl_net_needs_plugin refuses a plugin network without a plugin") {
  const profile::SiteProfile p = site("nccl_net_needs_plugin");
  CHECK_THROWS_WITH_AS(
      profile::check_guards(p, rank_env({{"NCCL_NET", "AWS Libfabric"}})),
      "site profile 'site' refuses NCCL_NET='AWS Libfabric' without a network plugin (guard "
      "nccl_net_needs_plugin): that network comes from a plugin, and NCCL/RCCL initialisation "
      "fails with \"network AWS Libfabric not found\" when none is loaded; set NCCL_NET_PLUGIN, "
      "say where the profile's setup provides it (launch.net_plugin), or unset NCCL_NET",
      hvd::ConfigError);
  CHECK_NOTHROW(profile::check_guards(
      p, rank_env({{"NCCL_NET", "AWS Libfabric"}, {"NCCL_NET_PLUGIN", "libnccl-net-ofi.so"}})));
  CHECK_NOTHROW(profile::check_guards(p, rank_env({{"NCCL_NET", "IB"}})));
  CHECK_NOTHROW(profile::check_guards(p, rank_env({{"NCCL_NET", "Socket"}})));
  CHECK_NOTHROW(profile::check_guards(p, rank_env({})));
  profile::SiteProfile with_plugin = p;
  with_plugin.net_plugin = "the uenv";
  CHECK_NOTHROW(profile::check_guards(with_plugin, rank_env({{"NCCL_NET", "AWS Libfabric"}})));
}

TEST_CASE("guards: no_mem_flag refuses --mem only") {
  const profile::SiteProfile p = site("no_mem_flag");
  CHECK_THROWS_WITH_AS(profile::check_guards(p, flags({"--mem", "10G"})),
                       "site profile 'site' refuses --mem 10G (guard no_mem_flag): site derives "
                       "a job's memory from its tasks and CPUs per task and rejects --mem; ask "
                       "for more CPUs per task instead",
                       hvd::UsageError);
  CHECK_THROWS_AS(profile::check_guards(p, flags({"--mem=0"})), hvd::UsageError);
  CHECK_NOTHROW(profile::check_guards(p, flags({"--mem-per-cpu=2G"})));
}

TEST_CASE("guards: an unknown guard name is a config error") {
  CHECK_THROWS_WITH_AS(profile::check_guards(site("nope"), {}),
                       "site profile 'site': unknown guard 'nope'", hvd::ConfigError);
}

TEST_CASE("guards: the shipped profiles pass their own settings and refuse the pitfalls") {
  const profile::SiteProfile alps = shipped("alps");
  profile::GuardContext own;
  for (const profile::EnvVar& v : alps.env) own.rank_env[v.name] = v.value;
  CHECK_NOTHROW(profile::check_guards(alps, own));
  CHECK_NOTHROW(profile::check_guards(shipped("olivia"), own));
  CHECK_THROWS_AS(profile::check_guards(shipped("perlmutter"), flags({"--gpus-per-task=1"})),
                  hvd::UsageError);
  CHECK_THROWS_AS(profile::check_guards(shipped("neuron"), flags({"--mem=100G"})), hvd::UsageError);
  CHECK_THROWS_AS(profile::check_guards(shipped("lumi"), rank_env({{"NCCL_NET", "AWS Libfabric"}})),
                  hvd::ConfigError);
}
