// SPDX-License-Identifier: Apache-2.0
// The per-run secret reaches every rank through its environment only, never a command line
// that ps shows, never a --dry-run plan; and hvdrun's raised descriptor limit stays its own.

#include <sys/resource.h>

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;

namespace {

std::map<int, json> run_secret_probe(int np) {
  const ProcessResult r = run(hvdrun({"-np", std::to_string(np), "--", RANK_PROBE_EXE, "secret"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::map<int, json> by_rank;
  for (const std::string& line : split_lines(r.out)) {
    const TaggedLine t = parse_tag(line);
    REQUIRE(t.rank >= 0);
    by_rank[t.rank] = json::parse(t.text);
  }
  REQUIRE(by_rank.size() == static_cast<size_t>(np));
  return by_rank;
}

bool is_hex64(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

TEST_CASE("each run draws a secret that its ranks get in their environment, not in argv") {
  const auto first = run_secret_probe(3);
  const std::string secret = first.at(0).at("secret");
  CHECK(is_hex64(secret));
  for (const auto& [rank_number, j] : first) {
    const int rank = rank_number;  // CAPTURE takes a lambda, which cannot name a binding (C++17)
    CAPTURE(rank);
    CHECK(j.at("secret") == secret);
    CHECK(j.at("in_argv") == false);
    CHECK(j.at("in_parent_argv") == false);  // the parent is hvdrun
  }
  CHECK(run_secret_probe(1).at(0).at("secret") != secret);  // fresh per run
}

TEST_CASE("hvdrun raises its own descriptor limit and gives the ranks the user's") {
  rlimit mine{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &mine) == 0);
  const auto ranks = run_secret_probe(2);
  for (const auto& [rank_number, j] : ranks) {
    const int rank = rank_number;
    CAPTURE(rank);
    CHECK(j.at("soft_nofile").get<long>() == static_cast<long>(mine.rlim_cur));
    if (mine.rlim_max != RLIM_INFINITY && mine.rlim_cur < mine.rlim_max) {
      CHECK(j.at("parent_soft_nofile").get<long>() == static_cast<long>(mine.rlim_max));
    }
  }
}

TEST_CASE("--dry-run never prints a run secret") {
  const std::map<std::string, std::string> planted = {
      {"HVD_RUN_SECRET", std::string(64, 'a')}};  // e.g. hvdrun started from inside a rank
  SUBCASE("local") {
    const ProcessResult r = run(hvdrun({"-np", "2", "--dry-run", "--", "/bin/true"}), planted);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.out.find("HVD_RUN_SECRET") == std::string::npos);
  }
  SUBCASE("in a Slurm job") {
    std::map<std::string, std::string> env = {{"SLURM_JOB_ID", "81234"},
                                              {"SLURM_JOB_NODELIST", "gpu[07-08]"},
                                              {"SLURM_TASKS_PER_NODE", "4(x2)"},
                                              {"SLURM_NTASKS", "8"},
                                              {"SLURM_PROCID", "0"},
                                              {"SLURM_STEP_ID", kUnset},
                                              {"SLURM_CLUSTER_NAME", "hvdtest"}};
    env.insert(planted.begin(), planted.end());
    const ProcessResult r = run(hvdrun({"--dry-run", "--", "/bin/true"}), env);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.out.find("HVD_RUN_SECRET") == std::string::npos);
    CHECK(r.out.find(std::string(64, 'a')) == std::string::npos);
  }
}

TEST_CASE("hvdrun sbatch writes no secret into the batch script") {
  TempDir dir;
  const ProcessResult r = run(hvdrun({"sbatch", "--profile", "neuron", "-N", "2", "-t", "01:00:00",
                                      "-o", dir.file("job.sh"), "--", "/bin/true"}),
                              {{"HVD_RUN_SECRET", std::string(64, 'b')}});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string script = read_text(dir.file("job.sh"));
  CHECK(script.find("HVD_RUN_SECRET") == std::string::npos);
  CHECK(script.find(std::string(64, 'b')) == std::string::npos);
}
