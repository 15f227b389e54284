// SPDX-License-Identifier: Apache-2.0
// hvdrun's Python packages on the ranks' PYTHONPATH: hvdrun.torch always (in a build that has
// it), the horovod shim only with --horovod-compat, both in front of the user's entries; in a
// local launch and in a Slurm step alike.

#include <doctest/doctest.h>

#include <fstream>

#include "hvd/build_config.h"
#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;

namespace {

constexpr const char* kUserPath = "/opt/user/site:/opt/user/more";

json python_dry_run(std::vector<std::string> flags, std::map<std::string, std::string> env = {}) {
  flags.insert(flags.begin(), "--dry-run");
  flags.insert(flags.end(), {"--", "/bin/true"});
  env["PYTHONPATH"] = kUserPath;
  const ProcessResult r = run(hvdrun(flags), env);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return json::parse(r.out);
}

std::string python_path(const json& plan, size_t rank = 0) {
  return plan.at("ranks").at(rank).at("env").value("PYTHONPATH", "<unset>");
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The entries of a PYTHONPATH value.
std::vector<std::string> entries(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t colon; (colon = path.find(':', start)) != std::string::npos; start = colon + 1) {
    out.push_back(path.substr(start, colon - start));
  }
  out.push_back(path.substr(start));
  return out;
}

// First hvdrun why's stack dump (lib/hvdrun/why, in every build), then hvdrun.torch's folder
// (in a build with torch), the horovod shim with --horovod-compat, then the user's own.
void check_path(const std::string& path, bool compat) {
  CAPTURE(path);
  const auto e = entries(path);
  const size_t ours = 1 + (HVD_HAVE_TORCH ? 1 : 0) + (HVD_HAVE_TORCH && compat ? 1 : 0);
  REQUIRE(e.size() == ours + 2);
  CHECK(ends_with(e[0], "/lib/hvdrun/why"));
  if (HVD_HAVE_TORCH) CHECK(ends_with(e[1], "/lib/hvdrun/python"));
  if (HVD_HAVE_TORCH && compat) CHECK(ends_with(e[2], "/lib/hvdrun/horovod-compat"));
  CHECK(e[e.size() - 2] == "/opt/user/site");
  CHECK(e.back() == "/opt/user/more");
}

std::map<std::string, std::string> python_job_env() {
  return {{"SLURM_JOB_ID", "81234"},         {"SLURM_JOB_NODELIST", "gpu[07-08]"},
          {"SLURM_TASKS_PER_NODE", "4(x2)"}, {"SLURM_NTASKS", "8"},
          {"SLURM_GPUS_ON_NODE", "4"},       {"SLURM_PROCID", "0"},
          {"SLURM_STEP_ID", kUnset},         {"SLURM_CLUSTER_NAME", "hvdtest"}};
}

}  // namespace

TEST_CASE("local ranks: hvdrun's folders first, the horovod shim only with --horovod-compat") {
  const json plain = python_dry_run({"-np", "2"});
  check_path(python_path(plain, 1), false);
  CHECK(plain.at("settings").at("launcher").at("horovod_compat") == false);
  const json compat = python_dry_run({"-np", "2", "--horovod-compat"});
  check_path(python_path(compat, 1), true);
  CHECK(compat.at("settings").at("launcher").at("horovod_compat") == true);
}

TEST_CASE("launcher.horovod_compat in a config file turns the shim on") {
  TempDir dir;
  std::ofstream(dir.file("run.yaml")) << "launcher:\n  horovod_compat: true\n";
  const json plan = python_dry_run({"-np", "1", "--config-file", dir.file("run.yaml")});
  check_path(python_path(plan), true);
  CHECK(plan.at("settings").at("launcher").at("horovod_compat") == true);
}

TEST_CASE("a Slurm step: exec-rank gets --horovod-compat and every task the same PYTHONPATH") {
  const json plain = python_dry_run({}, python_job_env());
  CHECK(plain.at("starter").at("line").get<std::string>().find("--horovod-compat") ==
        std::string::npos);
  check_path(python_path(plain, 7), false);
  const json compat = python_dry_run({"--horovod-compat"}, python_job_env());
  const std::string srun = compat.at("starter").at("line");
  CHECK(srun.find(" exec-rank ") < srun.find(" --horovod-compat "));
  CHECK(srun.find(" --horovod-compat ") < srun.find(" -- /bin/true"));
  check_path(python_path(compat, 7), true);
}

TEST_CASE("--help lists --horovod-compat") {
  const ProcessResult r = run(hvdrun({"--help"}));
  CHECK(r.out.find("--horovod-compat") != std::string::npos);
}
