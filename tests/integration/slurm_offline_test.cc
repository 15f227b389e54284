// SPDX-License-Identifier: Apache-2.0
// Slurm paths that need no cluster: planning from a job's environment, and missing commands.

#include <doctest/doctest.h>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;

namespace {
// The environment of a batch script in a 2-node job of the test profile's shape.
std::map<std::string, std::string> job_env() {
  return {{"SLURM_JOB_ID", "81234"},       {"SLURM_JOB_NODELIST", "gpu[07-08]"},
          {"SLURM_TASKS_PER_NODE", "4(x2)"}, {"SLURM_NTASKS", "8"},
          {"SLURM_GPUS_ON_NODE", "4"},     {"SLURM_PROCID", "0"},
          {"SLURM_STEP_ID", kUnset},       {"SLURM_CLUSTER_NAME", "hvdtest"}};
}
}  // namespace

TEST_CASE("--dry-run in a job: the srun line and each rank's predicted environment") {
  const ProcessResult r = run(hvdrun({"--mpi", "--dry-run", "--", "/bin/true"}), job_env());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json plan = json::parse(r.out);
  CHECK(plan.at("profile").at("name") == "hvdtest");  // detected from SLURM_CLUSTER_NAME
  const std::string srun = plan.at("srun_line");
  CHECK(srun.rfind("srun --nodes=2 --ntasks=8 --ntasks-per-node=4 --kill-on-bad-exit=1 --label "
                   "--mpi=pmix ", 0) == 0);
  CHECK(srun.find(" exec-rank --gpu-env CUDA_VISIBLE_DEVICES --master-addr ") != std::string::npos);
  REQUIRE(plan.at("ranks").size() == 8);
  const json& r6 = plan.at("ranks").at(6).at("env");
  CHECK(r6.at("LOCAL_RANK") == "2");
  CHECK(r6.at("GROUP_RANK") == "1");
  CHECK(r6.at("CUDA_VISIBLE_DEVICES") == "2");
  CHECK(r6.at("MASTER_PORT") == "21234");  // 20000 + job id % 10000
  CHECK(plan.at("ranks").at(6).at("node") == "gpu08");
}

TEST_CASE("inside an srun task hvdrun refuses to start another step") {
  auto env = job_env();
  env["SLURM_STEP_ID"] = "0";
  const ProcessResult r = run(hvdrun({"-np", "2", "--", "/bin/true"}), env);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("inside an srun task") != std::string::npos);
}

TEST_CASE("srun or sbatch missing is a scheduler error (exit 4)") {
  auto env = job_env();
  env["PATH"] = "/nonexistent";
  const ProcessResult r = run(hvdrun({"--", "/bin/true"}), env);
  CHECK(r.exit_code == 4);
  CHECK(only_line(r.err).find("srun was not found in PATH") != std::string::npos);
  const ProcessResult s = run(hvdrun({"sbatch", "--profile", "hvdtest", "-t", "10", "--submit",
                                      "--", "/bin/true"}),
                              {{"PATH", "/nonexistent"}});
  CHECK(s.exit_code == 4);
  CHECK(only_line(s.err).find("sbatch was not found in PATH") != std::string::npos);
}

TEST_CASE("hvdrun sbatch refuses what cannot work, with one line each") {
  const auto fails = [](std::vector<std::string> args, int code, const std::string& says) {
    args.insert(args.begin(), "sbatch");
    args.insert(args.end(), {"--", "/bin/true"});
    const ProcessResult r = run(hvdrun(args));
    CHECK(r.exit_code == code);
    CHECK_MESSAGE(only_line(r.err).find(says) != std::string::npos, r.err);
    CHECK(r.out.empty());
  };
  fails({"--profile", "nosuch", "-t", "10"}, 3, "unknown site profile 'nosuch' (known: alps, alvis");
  fails({"--profile", "perlmutter", "-t", "10"}, 2, "requires an account");
  fails({"--profile", "alvis", "-A", "x", "--gpus-per-node", "8", "-t", "10"}, 2,
        "alvis nodes have 4 GPU(s)");
  fails({"--profile", "lumi", "-A", "p", "-p", "dev-g", "-t", "04:00:00"}, 2,
        "is over the 03:00:00 limit of partition dev-g");
  fails({"--profile", "neuron", "-t", "10", "--sbatch-arg=--mem=64G"}, 2, "--mem");
}

TEST_CASE("hvdrun sbatch -o writes the script and nothing else") {
  TempDir dir;
  const ProcessResult r = run(hvdrun({"sbatch", "--profile", "neuron", "-N", "2", "-t",
                                      "02:00:00", "-o", dir.file("job.sh"), "--", "python3",
                                      "train.py"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.empty());
  const std::string script = read_text(dir.file("job.sh"));
  CHECK(script.find("#SBATCH --gres=gpu:8") != std::string::npos);
  CHECK(script.find("#SBATCH --comment=pytorch") != std::string::npos);
  CHECK(script.find(" -- python3 train.py\n") != std::string::npos);
}
