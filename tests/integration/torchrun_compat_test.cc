// SPDX-License-Identifier: Apache-2.0
// torchrun's ways under hvdrun: --nproc-per-node/--nnodes, TORCHELASTIC_ERROR_FILE in
// torchrun's error.json format, and a Slurm task's environment as Lightning and Accelerate
// read it (tests/frameworks/cluster_env_check.py restates their reads).

#include <filesystem>
#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;

namespace {

const std::string kPython = "/usr/bin/python3";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

bool python_has_torch() {
  return run({kPython, "-c", "import torch.distributed.elastic.multiprocessing.errors"})
             .exit_code == 0;
}

// A fresh folder under the build tree's test-tmp, removed at the end.
struct Folder {
  std::filesystem::path path;
  explicit Folder(const std::string& name) : path(std::filesystem::path(HVD_TEST_TMP_DIR) / name) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~Folder() { std::filesystem::remove_all(path); }
};

json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

// The environment srun gives task `rank` of a 2-node step, 4 tasks per node, of job 81234.
std::map<std::string, std::string> srun_task_env(int rank) {
  return {{"SLURM_JOB_ID", "81234"},         {"SLURM_JOB_NODELIST", "gpu[07-09]"},
          {"SLURM_STEP_NODELIST", "gpu[07-08]"}, {"SLURM_STEP_ID", "0"},
          {"SLURM_NTASKS", "8"},             {"SLURM_NNODES", "2"},
          {"SLURM_STEP_NUM_NODES", "2"},     {"SLURM_NTASKS_PER_NODE", "4"},
          {"SLURM_STEP_TASKS_PER_NODE", "4(x2)"}, {"SLURM_TASKS_PER_NODE", "4(x3)"},
          {"SLURM_PROCID", std::to_string(rank)}, {"SLURM_LOCALID", std::to_string(rank % 4)},
          {"SLURM_NODEID", std::to_string(rank / 4)}, {"SLURM_JOB_NAME", "train"}};
}

}  // namespace

TEST_CASE("--nproc-per-node N on this machine starts N ranks, as -np N") {
  const ProcessResult r =
      run(hvdrun({"--nproc_per_node", "3", "--", "/bin/sh", "-c", "echo size=$WORLD_SIZE"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(count(r.out, "<stdout>:size=3") == 3);
}

TEST_CASE("--nnodes outside a Slurm job, or with -np, is one line and exit 2") {
  ProcessResult r = run(hvdrun({"--nproc-per-node", "2", "--nnodes", "2", "--", "/bin/true"}));
  CHECK(r.exit_code == 2);
  CHECK(only_line(r.err).find("--nnodes 2: outside a Slurm job") != std::string::npos);
  r = run(hvdrun({"-np", "4", "--nproc-per-node", "2", "--", "/bin/true"}));
  CHECK(r.exit_code == 2);
  CHECK(only_line(r.err).find("-np 4 and --nproc-per-node 2: give one") != std::string::npos);
}

TEST_CASE("--nproc-per-node 4 --nnodes 2 in a 3-node job: srun gets 4 tasks on each of 2 nodes") {
  const std::map<std::string, std::string> job = {
      {"SLURM_JOB_ID", "81234"}, {"SLURM_JOB_NODELIST", "gpu[07-09]"},
      {"SLURM_TASKS_PER_NODE", "4(x3)"}, {"SLURM_NTASKS", "12"},
      {"SLURM_STEP_ID", kUnset}, {"SLURM_PROCID", kUnset}, {"SLURM_CLUSTER_NAME", "hvdtest"}};
  const ProcessResult r = run(
      hvdrun({"--nproc-per-node", "4", "--nnodes", "2", "--dry-run", "--", "/bin/true"}), job);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json plan = json::parse(r.out);
  // srun sets SLURM_NNODES=2 and SLURM_NTASKS_PER_NODE=4 in the tasks from these, which is what
  // Lightning compares with Trainer(num_nodes=2, devices=4).
  CHECK(plan.at("starter").at("line").get<std::string>().rfind(
            "srun --nodes=2 --ntasks=8 --ntasks-per-node=4 ", 0) == 0);
  CHECK(plan.at("ranks").size() == 8);
  const ProcessResult too_many = run(
      hvdrun({"--nproc-per-node", "5", "--dry-run", "--", "/bin/true"}), job);
  CHECK(too_many.exit_code == 2);
  CHECK(only_line(too_many.err).find("--nproc-per-node 5 on 3 node(s) is 15 ranks") !=
        std::string::npos);
}

TEST_CASE("a Slurm task's environment is what Lightning's SLURMEnvironment and Accelerate read") {
  for (int rank : {0, 6}) {
    const ProcessResult r =
        run(hvdrun({"exec-rank", "--master-addr", "127.0.0.1", "--master-port", "29500", "--",
                    kPython,
                    std::string(HVD_TEST_DATA_DIR) + "/../frameworks/cluster_env_check.py", "4",
                    "2"}),
            srun_task_env(rank));
    CHECK_MESSAGE(r.exit_code == 0, r.out, r.err);
    CHECK(r.out == "cluster_env: ok rank " + std::to_string(rank) + "\n");
  }
}

TEST_CASE("TORCHELASTIC_ERROR_FILE: a rank that wrote none gets hvdrun's line in torch's format") {
  Folder dir("torchelastic-sh");
  const std::string file = (dir.path / "error.json").string();
  // Rank 1 checks that its own file is not the user's, then fails without writing it.
  const ProcessResult r =
      run(hvdrun({"-np", "2", "--", "/bin/sh", "-c",
                  "[ \"$TORCHELASTIC_ERROR_FILE\" != \"" + file + "\" ] || exit 9; "
                  "if [ \"$RANK\" = 1 ]; then exit 3; fi; exec sleep 60"}),
          {{"TORCHELASTIC_ERROR_FILE", file}});
  CHECK(r.exit_code == 3);
  const json out = read_json(file);
  const std::string message = out.at("message").at("message");
  CHECK(message.rfind("ChildFailedError: rank 1 on ", 0) == 0);
  CHECK(message.find("exited with code 3") != std::string::npos);
  CHECK(out.at("message").at("extraInfo").at("py_callstack") == "<N/A>");
  // hvdrun's folder for the ranks' files is gone; only the user's file is left.
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path),
                      std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("TORCHELASTIC_ERROR_FILE: a @record rank's exception, as torchrun passes it on" *
          doctest::skip(!python_has_torch())) {
  Folder dir("torchelastic-torch");
  const std::string file = (dir.path / "error.json").string();
  const std::string script =
      "import os\n"
      "from torch.distributed.elastic.multiprocessing.errors import record\n"
      "@record\n"
      "def main():\n"
      "    if os.environ['RANK'] == '1':\n"
      "        raise ValueError('bad batch 17')\n"
      "main()\n";
  const ProcessResult r = run(hvdrun({"-np", "2", "--", kPython, "-c", script}),
                              {{"TORCHELASTIC_ERROR_FILE", file}});
  CHECK(r.exit_code == 1);
  const json out = read_json(file);
  CHECK(out.at("message").at("message") == "ValueError: bad batch 17");
  CHECK(out.at("message").at("errorCode") == 1);
  CHECK(out.at("message").at("extraInfo").at("py_callstack").get<std::string>().find(
            "ValueError: bad batch 17") != std::string::npos);  // the traceback's last line
  // torch's own reader of error files takes it, as torchrun's caller would.
  const ProcessResult parsed = run(
      {kPython, "-c",
       "import sys\n"
       "from torch.distributed.elastic.multiprocessing.errors import ProcessFailure\n"
       "f = ProcessFailure(local_rank=1, pid=1, exitcode=1, error_file=sys.argv[1])\n"
       "print(f.message['message'], f.timestamp > 0)\n",
       file});
  CHECK(parsed.out == "ValueError: bad batch 17 True\n");
}
