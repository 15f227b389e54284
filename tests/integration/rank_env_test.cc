// SPDX-License-Identifier: Apache-2.0
// Every rank's identity, rendezvous and binding, as the ranks themselves see them.

#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;

namespace {

std::map<int, json> run_env_probe(int np, const std::vector<std::string>& extra_flags,
                                  const std::map<std::string, std::string>& env) {
  std::vector<std::string> args = {"-np", std::to_string(np)};
  args.insert(args.end(), extra_flags.begin(), extra_flags.end());
  args.insert(args.end(), {"--", RANK_PROBE_EXE, "env"});
  const ProcessResult r = run(hvdrun(args), env);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::map<int, json> by_rank;
  for (const std::string& line : split_lines(r.out)) {
    const TaggedLine t = parse_tag(line);
    REQUIRE(t.rank >= 0);
    CHECK(t.stream == "stdout");
    const json j = json::parse(t.text);
    CHECK(j.at("HOROVOD_RANK").get<std::string>() == std::to_string(t.rank));
    by_rank[t.rank] = j;
  }
  return by_rank;
}

bool have_nvidia_devices() { return std::filesystem::exists("/dev/nvidia0"); }

}  // namespace

TEST_CASE("rank environment is complete and consistent for 1 to 8 ranks") {
  for (int np = 1; np <= 8; ++np) {
    CAPTURE(np);
    const auto ranks = run_env_probe(np, {}, {{"OMP_NUM_THREADS", kUnset}});
    REQUIRE(ranks.size() == static_cast<size_t>(np));
    const json& first = ranks.at(0);
    std::set<int> pids;
    for (const auto& [rank, j] : ranks) {
      const std::string r = std::to_string(rank), n = std::to_string(np);
      CHECK(j.at("HOROVOD_RANK") == r);
      CHECK(j.at("RANK") == r);
      CHECK(j.at("HOROVOD_SIZE") == n);
      CHECK(j.at("WORLD_SIZE") == n);
      CHECK(j.at("HOROVOD_LOCAL_RANK") == r);
      CHECK(j.at("LOCAL_RANK") == r);
      CHECK(j.at("HOROVOD_LOCAL_SIZE") == n);
      CHECK(j.at("LOCAL_WORLD_SIZE") == n);
      CHECK(j.at("HOROVOD_CROSS_RANK") == "0");
      CHECK(j.at("HOROVOD_CROSS_SIZE") == "1");
      CHECK(j.at("GROUP_RANK") == "0");
      CHECK(j.at("MASTER_ADDR") == "127.0.0.1");
      CHECK(std::stoi(j.at("MASTER_PORT").get<std::string>()) > 0);
      CHECK(std::stoi(j.at("HVD_STORE_PORT").get<std::string>()) > 0);
      CHECK(j.at("MASTER_PORT") != j.at("HVD_STORE_PORT"));
      // One run: the same rendezvous for every rank.
      for (const char* k : {"MASTER_PORT", "HVD_STORE_ADDR", "HVD_STORE_PORT", "HVD_RUN_ID",
                            "HOROVOD_HOSTNAME"}) {
        CHECK(j.at(k) == first.at(k));
      }
      CHECK(std::stoi(j.at("OMP_NUM_THREADS").get<std::string>()) >= 1);
      if (!have_nvidia_devices()) CHECK(j.count("CUDA_VISIBLE_DEVICES") == 0);
      pids.insert(j.at("pid").get<int>());
    }
    CHECK(pids.size() == static_cast<size_t>(np));  // separate processes
  }
}

TEST_CASE("OMP_NUM_THREADS set by the user is kept") {
  const auto ranks = run_env_probe(2, {}, {{"OMP_NUM_THREADS", "7"}});
  for (const auto& [rank, j] : ranks) CHECK(j.at("OMP_NUM_THREADS") == "7");
}

TEST_CASE("each visible GPU goes to one local rank through CUDA_VISIBLE_DEVICES") {
  // The GPUs hvdrun sees are the ones already visible to it; ids need not exist to be handed out.
  const auto ranks = run_env_probe(2, {}, {{"CUDA_VISIBLE_DEVICES", "3,5"}});
  CHECK(ranks.at(0).at("CUDA_VISIBLE_DEVICES") == "3");
  CHECK(ranks.at(1).at("CUDA_VISIBLE_DEVICES") == "5");
}

TEST_CASE("--bind-to core pins ranks to disjoint CPUs and says which") {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const int np = cpus >= 2 ? 2 : 1;
  const auto ranks = run_env_probe(np, {"--bind-to", "core"}, {});
  std::set<int> seen;
  for (const auto& [rank, j] : ranks) {
    const auto affinity = j.at("affinity").get<std::vector<int>>();
    REQUIRE(!affinity.empty());
    REQUIRE(j.count("HVD_CPU_LIST") == 1);
    std::string expected;
    for (int c : affinity) expected += (expected.empty() ? "" : ",") + std::to_string(c);
    // A contiguous block prints as a range, a single CPU as itself.
    if (affinity.size() == 1) CHECK(j.at("HVD_CPU_LIST") == expected);
    for (int c : affinity) CHECK(seen.insert(c).second);
  }
}

TEST_CASE("--bind-to none leaves the affinity alone") {
  const auto ranks = run_env_probe(2, {"--bind-to", "none"}, {});
  for (const auto& [rank, j] : ranks) {
    CHECK(j.count("HVD_CPU_LIST") == 0);
    CHECK(j.at("affinity").size() == static_cast<size_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  }
}

TEST_CASE("--dry-run prints the plan and starts nothing") {
  TempDir dir;
  const ProcessResult r = run(hvdrun({"-np", "3", "--dry-run", "--", RANK_PROBE_EXE, "orphan",
                                      dir.path()}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json plan = json::parse(r.out);
  CHECK(plan.at("mode") == "local");
  CHECK(plan.at("size") == 3);
  REQUIRE(plan.at("ranks").size() == 3);
  for (int i = 0; i < 3; ++i) {
    const json& rank = plan.at("ranks").at(static_cast<size_t>(i));
    CHECK(rank.at("rank") == i);
    CHECK(rank.at("env").at("HOROVOD_RANK") == std::to_string(i));
    CHECK(rank.at("binding").contains("cpus"));
  }
  if (!have_nvidia_devices()) {
    bool said = false;
    for (const auto& note : plan.at("binding").at("notes")) {
      said = said || note.get<std::string>().find("no GPUs visible") != std::string::npos;
    }
    CHECK(said);
  }
  CHECK(std::filesystem::is_empty(dir.path()));  // no rank ran
}

TEST_CASE("the quick-start job: hvd-whoami checks in through the rendezvous store") {
  const ProcessResult r = run(hvdrun({"-np", "4", "--", HVD_WHOAMI_EXE}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("4 ranks checked in") != std::string::npos);
  for (int rank = 0; rank < 4; ++rank) {
    bool row = false;
    for (const std::string& line : split_lines(r.out)) {
      const TaggedLine t = parse_tag(line);
      row = row || (t.rank == 0 && t.text.rfind(std::to_string(rank) + " ", 0) == 0);
    }
    CHECK_MESSAGE(row, "no row for rank ", rank, " in:\n", r.out);
  }
}

TEST_CASE("-H localhost:N and a hostfile give the number of ranks") {
  const ProcessResult h = run(hvdrun({"-H", "localhost:3", "--", RANK_PROBE_EXE, "env"}));
  REQUIRE_MESSAGE(h.exit_code == 0, h.err);
  CHECK(split_lines(h.out).size() == 3);
  TempDir dir;
  const std::string hostfile = dir.file("hosts");
  std::ofstream(hostfile) << "# this machine\nlocalhost slots=2\n";
  const ProcessResult f = run(hvdrun({"--hostfile", hostfile, "--", RANK_PROBE_EXE, "env"}));
  REQUIRE_MESSAGE(f.exit_code == 0, f.err);
  CHECK(split_lines(f.out).size() == 2);
}
