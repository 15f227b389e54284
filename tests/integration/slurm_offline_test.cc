// SPDX-License-Identifier: Apache-2.0
// Slurm paths that need no cluster: planning from a job's environment, and missing commands.

#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

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
  // Detected from SLURM_CLUSTER_NAME.
  CHECK(plan.at("slurm").at("profile").at("name") == "hvdtest");
  const std::string srun = plan.at("starter").at("line");
  CHECK(srun.rfind("srun --nodes=2 --ntasks=8 --ntasks-per-node=4 --kill-on-bad-exit=1 --label "
                   "--mpi=pmix ", 0) == 0);
  CHECK(srun.find(" exec-rank --gpu-env CUDA_VISIBLE_DEVICES --master-addr ") != std::string::npos);
  REQUIRE(plan.at("ranks").size() == 8);
  const json& r6 = plan.at("ranks").at(6).at("env");
  CHECK(r6.at("LOCAL_RANK") == "2");
  CHECK(r6.at("GROUP_RANK") == "1");
  CHECK(r6.at("CUDA_VISIBLE_DEVICES") == "2");
  CHECK(r6.at("MASTER_PORT") == "21234");  // 20000 + job id % 10000
  CHECK(plan.at("ranks").at(6).at("host") == "gpu08");
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
  fails({"--profile", "neuron", "-t", "10", "--requeue-on-signal", "--signal-lead", "60"}, 2,
        "--signal-lead 60 s leaves no time to requeue after the ranks' checkpoint grace of 60 s");
  fails({"--profile", "neuron", "-t", "10", "--requeue-on-signal",
         "--hvdrun-arg=--checkpoint-grace-seconds=200"}, 2,
        "--signal-lead 120 s leaves no time to requeue after the ranks' checkpoint grace of 200 s");
}

TEST_CASE("hvdrun sbatch --requeue-on-signal: default lead, requeue, and hvdrun's own flag") {
  const ProcessResult r = run(hvdrun({"sbatch", "--profile", "neuron", "-t", "10",
                                      "--requeue-on-signal", "--", "python3", "train.py"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const char* text : {"#SBATCH --signal=B:USR2@120  #", "#SBATCH --requeue  #",
                           "#SBATCH --open-mode=append  #",
                           " --requeue-on-signal -- python3 train.py\n"}) {
    CHECK_MESSAGE(r.out.find(text) != std::string::npos, "missing: ", text, "\n", r.out);
  }
  // Given once through --hvdrun-arg as well: still once on hvdrun's line.
  const ProcessResult twice = run(hvdrun({"sbatch", "--profile", "neuron", "-t", "10",
                                          "--requeue-on-signal", "--signal-lead", "300",
                                          "--preempt-signal", "USR1",
                                          "--hvdrun-arg=--requeue-on-signal", "--", "a.out"}));
  REQUIRE_MESSAGE(twice.exit_code == 0, twice.err);
  CHECK(twice.out.find("#SBATCH --signal=B:USR1@300  #") != std::string::npos);
  CHECK(twice.out.find("--requeue-on-signal --requeue-on-signal") == std::string::npos);
}

TEST_CASE("hvdrun sbatch --requeue-on-signal: a checkpoint grace from the job's --config-file counts") {
  TempDir dir;
  write_text(dir.file("hvdrun.yaml"), "launcher:\n  checkpoint_grace_seconds: 150\n");
  const std::string config = "--hvdrun-arg=--config-file=" + dir.file("hvdrun.yaml");
  const ProcessResult r = run(hvdrun({"sbatch", "--profile", "neuron", "-t", "10",
                                      "--requeue-on-signal", config, "--", "a.out"}));
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(only_line(r.err).find("checkpoint grace of 150 s") != std::string::npos, r.err);
  // A longer lead fits; a broken config file fails at submit time, naming the file.
  const ProcessResult fits = run(hvdrun({"sbatch", "--profile", "neuron", "-t", "10",
                                         "--requeue-on-signal", "--signal-lead", "200", config,
                                         "--", "a.out"}));
  CHECK_MESSAGE(fits.exit_code == 0, fits.err);
  write_text(dir.file("hvdrun.yaml"), "launcher:\n  checkpoint_grace_secs: 1\n");
  const ProcessResult broken = run(hvdrun({"sbatch", "--profile", "neuron", "-t", "10",
                                           "--requeue-on-signal", config, "--", "a.out"}));
  CHECK(broken.exit_code == 3);
  CHECK_MESSAGE(only_line(broken.err).find(dir.file("hvdrun.yaml")) != std::string::npos,
                broken.err);
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

namespace {
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool has_line_starting(const std::string& text, const std::string& start) {
  for (const std::string& line : lines_of(text)) {
    if (line.rfind(start, 0) == 0) return true;
  }
  return false;
}
}  // namespace

TEST_CASE("hvdrun sbatch --explain: LUMI's CPU masks and GPU per local rank, nothing else") {
  const ProcessResult r = run(hvdrun({"sbatch", "--profile", "lumi", "-A", "project_1", "-N", "2",
                                      "-t", "01:00:00", "--explain", "--", "python3", "train.py"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("#SBATCH") == std::string::npos);
  CHECK(r.out.find("16 ranks on 2 nodes") != std::string::npos);
  CHECK(r.out.find(" --cpu-bind=mask_cpu:0x00fe000000000000,0xfe00000000000000,") !=
        std::string::npos);
  CHECK(r.out.find(" --cpus-per-task=7 ") != std::string::npos);
  // Local rank 0 is pinned to the 7 cores next to GCD 0, per the profile's mask (gpu_cpus).
  CHECK_MESSAGE(has_line_starting(r.out, "  0      0      ROCR_VISIBLE_DEVICES=0  49-55  7"), r.out);
  CHECK(has_line_starting(r.out, "  4      4      ROCR_VISIBLE_DEVICES=4  1-7    7"));
  CHECK(r.out.find("ROCR_VISIBLE_DEVICES=7  41-47") != std::string::npos);
  CHECK(r.out.find("ROCR_VISIBLE_DEVICES=8") == std::string::npos);  // one node's ranks only
}

TEST_CASE("hvdrun sbatch --explain needs no time or account, the script does, and says where help is") {
  // The step it shows does not depend on them, so a user can look before choosing them.
  const ProcessResult shown =
      run(hvdrun({"sbatch", "--profile", "lumi", "-N", "2", "--explain", "--", "python3", "t.py"}));
  REQUIRE_MESSAGE(shown.exit_code == 0, shown.err);
  CHECK(shown.out.find("16 ranks on 2 nodes") != std::string::npos);
  const ProcessResult no_time = run(hvdrun({"sbatch", "--profile", "neuron", "--", "/bin/true"}));
  CHECK(no_time.exit_code == 2);
  CHECK_MESSAGE(only_line(no_time.err).find("-t/--time is required") != std::string::npos,
                no_time.err);
  const ProcessResult bad_flag =
      run(hvdrun({"sbatch", "--profile", "neuron", "--nosuch", "-t", "10", "--", "/bin/true"}));
  CHECK(bad_flag.exit_code == 2);
  CHECK_MESSAGE(only_line(bad_flag.err).find("see hvdrun sbatch --help") != std::string::npos,
                bad_flag.err);
  // Still checked with --explain: what shapes the step.
  const ProcessResult too_many = run(hvdrun({"sbatch", "--profile", "alvis", "--gpus-per-node",
                                             "8", "--explain", "--", "/bin/true"}));
  CHECK(too_many.exit_code == 2);
  CHECK(only_line(too_many.err).find("alvis nodes have 4 GPU(s)") != std::string::npos);
}

TEST_CASE("hvdrun sbatch: the script shows the srun line and each rank's GPU in comments") {
  const ProcessResult r = run(hvdrun({"sbatch", "--profile", "perlmutter", "-A", "m1", "-t",
                                      "01:00:00", "--", "python3", "train.py"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(has_line_starting(r.out, "#   srun --nodes=1 --ntasks=4 --ntasks-per-node=4 "));
  CHECK(r.out.find("--cpu-bind=cores --gpu-bind=none --cpus-per-task=32") != std::string::npos);
  // Perlmutter's GPUs in reverse order of local rank (the profile's gpu_order).
  CHECK(has_line_starting(r.out, "#   0      0      CUDA_VISIBLE_DEVICES=3  32 CPUs, bound to cores"));
  CHECK(has_line_starting(r.out, "#   3      3      CUDA_VISIBLE_DEVICES=0"));
  // Every line of the explanation is a comment: nothing in it runs.
  const auto lines = lines_of(r.out);
  const auto first = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("hvdrun runs this one srun step") != std::string::npos;
  });
  REQUIRE(first != lines.end());
  for (auto it = first; it != lines.end() && it->rfind("exec ", 0) != 0; ++it) {
    CHECK_MESSAGE(it->rfind("#", 0) == 0, *it);
  }
}

TEST_CASE("hvdrun sbatch --explain: the srun line is the one hvdrun runs in that job") {
  const ProcessResult explained =
      run(hvdrun({"sbatch", "--profile", "hvdtest", "-N", "2", "-t", "10", "--hvdrun-arg=--mpi",
                  "--explain", "--", "/bin/true", "a b"}));
  REQUIRE_MESSAGE(explained.exit_code == 0, explained.err);
  std::string line = lines_of(explained.out).at(1).substr(2);
  // Inside a job of that shape (2 nodes x 4 tasks, hvdtest's profile), with --mpi.
  const ProcessResult in_job = run(hvdrun({"--mpi", "--dry-run", "--", "/bin/true", "a b"}), job_env());
  REQUIRE_MESSAGE(in_job.exit_code == 0, in_job.err);
  std::string srun = json::parse(in_job.out).at("starter").at("line");
  const auto replace = [](std::string& text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, from, " in ", text);
    text.replace(at, from.size(), to);
  };
  replace(srun, "--master-port 21234", "--master-port '<20000+job id%10000>'");
  const size_t addr = srun.find("--master-addr ") + 14;
  srun.replace(addr, srun.find(' ', addr) - addr, "'<first node>'");
  CHECK(line == srun);
  CHECK(line.find(" --mpi=pmix ") != std::string::npos);
}

TEST_CASE("hvdrun sbatch: a bad --hvdrun-arg or -np fails before the job waits in the queue") {
  const ProcessResult bogus = run(hvdrun({"sbatch", "--profile", "hvdtest", "-t", "10",
                                          "--hvdrun-arg=--no-such-flag", "--", "/bin/true"}));
  CHECK(bogus.exit_code == 2);
  CHECK_MESSAGE(only_line(bogus.err).find("--hvdrun-arg: ") != std::string::npos, bogus.err);
  CHECK(bogus.out.empty());
  const ProcessResult too_many =
      run(hvdrun({"sbatch", "--profile", "hvdtest", "-t", "10", "--hvdrun-arg=-np",
                  "--hvdrun-arg=9", "--", "/bin/true"}));
  CHECK(too_many.exit_code == 2);
  CHECK_MESSAGE(only_line(too_many.err).find("raise -N or --ntasks-per-node, or lower -np") !=
                    std::string::npos,
                too_many.err);
}

TEST_CASE("hvdrun sbatch: a newline in the program's arguments stays inside the comment") {
  const ProcessResult r = run(hvdrun({"sbatch", "--profile", "olivia", "-A", "x", "-t", "10",
                                      "--", "python3", "a\ntouch /tmp/owned"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("'a\\x0atouch /tmp/owned'") != std::string::npos);
  for (const std::string& line : lines_of(r.out)) {
    // The only line that starts with it is the end of exec's quoted argument.
    if (line.find("touch /tmp/owned") == 0) CHECK(line == "touch /tmp/owned'");
  }
}
