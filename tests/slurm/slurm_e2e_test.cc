// SPDX-License-Identifier: Apache-2.0
// hvdrun on a real Slurm cluster (tests/slurm/cluster.sh: two nodes, four GPU devices each).
// SLURM_CONF comes from the ctest fixture; the test profile is
// tests/data/site-profiles/hvdtest.yaml.

#include <signal.h>

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <thread>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;

namespace {

const std::string kProfile = std::string(HVD_SOURCE_DIR) + "/tests/data/site-profiles/hvdtest.yaml";

// Each rank's `rank_probe env` line, by rank.
std::map<int, json> rank_lines(const std::string& output) {
  std::map<int, json> ranks;
  for (const std::string& line : split_lines(output)) {
    const TaggedLine t = parse_tag(line);
    if (t.rank < 0 || t.text.empty() || t.text[0] != '{') continue;
    ranks[t.rank] = json::parse(t.text);
  }
  return ranks;
}

void check_eight_ranks_on_two_nodes(const std::map<int, json>& ranks) {
  REQUIRE(ranks.size() == 8);
  for (const auto& [rank_number, j] : ranks) {
    const int rank = rank_number;  // CAPTURE takes a lambda, which cannot name a binding (C++17)
    CAPTURE(rank);
    CHECK(j.at("RANK") == std::to_string(rank));
    CHECK(j.at("WORLD_SIZE") == "8");
    CHECK(j.at("LOCAL_RANK") == std::to_string(rank % 4));
    CHECK(j.at("HOROVOD_CROSS_RANK") == std::to_string(rank / 4));
    CHECK(j.at("HOROVOD_HOSTNAME") == (rank < 4 ? "node1" : "node2"));
    CHECK(j.at("CUDA_VISIBLE_DEVICES") == std::to_string(rank % 4));  // one GPU each
    // The first node of the step; node1's address (NodeAddr) on this cluster.
    CHECK(j.at("MASTER_ADDR") == "127.0.0.1");
    CHECK(j.at("MASTER_PORT") == ranks.at(0).at("MASTER_PORT"));
    CHECK(j.at("HVD_STORE_PORT") == ranks.at(0).at("HVD_STORE_PORT"));
  }
}

// Polls until the job has left the queue; bounded so that a stuck job fails the test.
void wait_for_job(const std::string& job_id) {
  for (int i = 0; i < 1200; ++i) {
    const ProcessResult q = run({"/usr/bin/squeue", "-h", "-j", job_id, "-o", "%T"});
    if (q.out.empty()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  FAIL("job ", job_id, " did not finish within 120 s");
}

std::vector<std::string> salloc(std::vector<std::string> hvdrun_args) {
  std::vector<std::string> args = {
      "/usr/bin/salloc", "--quiet",  "-N",        "2",     "--ntasks-per-node=4",
      "--gres=gpu:4",    HVDRUN_EXE, "--profile", kProfile};
  args.insert(args.end(), hvdrun_args.begin(), hvdrun_args.end());
  return args;
}

}  // namespace

TEST_CASE("hvdrun sbatch --submit: 8 ranks over 2 nodes with the right identity and GPU") {
  TempDir dir;
  const ProcessResult submit = run(hvdrun(
      {"sbatch", "--profile", kProfile, "-N", "2", "-t", "00:05:00", "--log", dir.file("job.out"),
       "-o", dir.file("job.sbatch"), "--submit", "--", RANK_PROBE_EXE, "env"}));
  REQUIRE_MESSAGE(submit.exit_code == 0, submit.err);
  const std::string job_id = split_lines(submit.out).at(0);
  CHECK(job_id.find_first_not_of("0123456789") == std::string::npos);
  wait_for_job(job_id);
  const std::string output = read_text(dir.file("job.out"));
  INFO(output);
  check_eight_ranks_on_two_nodes(rank_lines(output));
  CHECK(read_text(dir.file("job.sbatch")).find("#SBATCH --nodes=2") != std::string::npos);
}

TEST_CASE("hvdrun sbatch --preflight: a flagged node ends the job before the program, exit 6") {
  TempDir dir;
  // A profile naming a NIC no node has: both nodes are flagged whatever the timings.
  const std::string missing_nic =
      std::string(HVD_SOURCE_DIR) + "/tests/data/site-profiles/hvdtest-missing-nic.yaml";
  const ProcessResult submit = run(hvdrun(
      {"sbatch", "--profile", missing_nic, "-N", "2", "-t", "00:05:00", "--preflight", "--log",
       dir.file("job.out"), "--sbatch-arg=--chdir=" + dir.path(), "--submit", "--",
       RANK_PROBE_EXE, "env"}));
  REQUIRE_MESSAGE(submit.exit_code == 0, submit.err);
  const std::string job_id = split_lines(submit.out).at(0);
  wait_for_job(job_id);
  const std::string output = read_text(dir.file("job.out"));
  INFO(output);
  CHECK(output.find("NIC hvdtest-nic0 missing") != std::string::npos);
  CHECK(output.find("--exclude=node[1-2]") != std::string::npos);
  CHECK(rank_lines(output).empty());  // the program never ran
  const ProcessResult job = run({"/usr/bin/scontrol", "-o", "show", "job", job_id});
  CHECK(job.out.find(" ExitCode=6:0") != std::string::npos);
  // The figures, named after the job, in the job's working folder.
  const json report = json::parse(read_text(dir.file("hvdrun-preflight-" + job_id + ".json")));
  CHECK(report.at("flagged_hosts") == json::array({"node1", "node2"}));
}

TEST_CASE("hvdrun inside salloc launches one srun step") {
  const ProcessResult r = run(salloc({"--", RANK_PROBE_EXE, "env"}));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_eight_ranks_on_two_nodes(rank_lines(r.out));
}

TEST_CASE("--dry-run inside an allocation prints the srun line and every rank's environment") {
  const ProcessResult r = run(salloc({"--mpi", "--dry-run", "--", RANK_PROBE_EXE, "env"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json plan = json::parse(r.out);
  CHECK(plan.at("mode") == "slurm");
  CHECK(plan.at("starter").at("line").get<std::string>().find("--mpi=pmix") != std::string::npos);
  REQUIRE(plan.at("ranks").size() == 8);
  CHECK(plan.at("ranks").at(5).at("env").at("LOCAL_RANK") == "1");
  CHECK(plan.at("ranks").at(5).at("env").at("MASTER_ADDR") == "127.0.0.1");
}

TEST_CASE("an Open MPI program launched by hvdrun through srun --mpi=pmix spans both nodes" *
          doctest::skip(std::string(MPI_ALLREDUCE_EXE).empty())) {
  const ProcessResult r = run({"/usr/bin/salloc", "--quiet", "-N", "2", "-n", "4", HVDRUN_EXE,
                               "--mpi", "--profile", kProfile, "--", MPI_ALLREDUCE_EXE});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  std::set<std::string> hosts;
  // mpi_allreduce prints "rank R of N on HOST sum S ok" per rank.
  for (const std::string& line : split_lines(r.out)) {
    const TaggedLine t = parse_tag(line);
    const auto on = t.text.find(" on "), sum = t.text.find(" sum ");
    if (t.rank < 0 || on == std::string::npos || sum == std::string::npos) continue;
    hosts.insert(t.text.substr(on + 4, sum - on - 4));
    CHECK(t.text.substr(t.text.size() - 3) == " ok");
  }
  CHECK(hosts == std::set<std::string>{"node1", "node2"});
  CHECK(r.out.find("allreduce ok: 4 ranks on 2 hosts") != std::string::npos);
}

TEST_CASE("a failing rank ends the step with its exit code and no task survives") {
  TempDir dir;
  const ProcessResult r = run(salloc({"--", RANK_PROBE_EXE, "fail", "5", "3", dir.path()}), {},
                              std::chrono::seconds(120));
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("first failure: rank 5 on node2 exited with code 3") != std::string::npos);
  const auto pids = read_pids(dir.path(), "pid");
  CHECK(pids.size() == 8);
  CHECK(wait_until_dead(pids));
}

TEST_CASE("scancel --signal=USR1 reaches every rank") {
  TempDir dir;
  const ProcessResult submit =
      run(hvdrun({"sbatch", "--profile", kProfile, "-N", "2", "-t", "00:05:00", "--log",
                  dir.file("job.out"), "--submit", "--", RANK_PROBE_EXE, "trap", dir.path()}));
  REQUIRE_MESSAGE(submit.exit_code == 0, submit.err);
  const std::string job_id = split_lines(submit.out).at(0);
  const bool up = wait_for_files(dir.path(), "pid", 8);
  if (up) {
    CHECK(run({"/usr/bin/scancel", "--signal=USR1", job_id}).exit_code == 0);
    CHECK(wait_for_files(dir.path(), "USR1", 8));
  }
  run({"/usr/bin/scancel", job_id});
  wait_for_job(job_id);
  REQUIRE_MESSAGE(up, read_text(dir.file("job.out")));
}

TEST_CASE(
    "a signal for the batch shell (--signal=B:, scancel -b) reaches every rank through hvdrun") {
  TempDir dir;
  const ProcessResult submit = run(
      hvdrun({"sbatch", "--profile", kProfile, "-N", "2", "-t", "00:05:00", "--signal-lead", "60",
              "--log", dir.file("job.out"), "--submit", "--", RANK_PROBE_EXE, "trap", dir.path()}));
  REQUIRE_MESSAGE(submit.exit_code == 0, submit.err);
  const std::string job_id = split_lines(submit.out).at(0);
  const bool up = wait_for_files(dir.path(), "pid", 8);
  if (up) {
    // What Slurm does at the --signal lead time: signal the batch shell, which is hvdrun.
    CHECK(run({"/usr/bin/scancel", "--batch", "--signal=USR2", job_id}).exit_code == 0);
    CHECK(wait_for_files(dir.path(), "USR2", 8));
  }
  run({"/usr/bin/scancel", job_id});
  wait_for_job(job_id);
  REQUIRE_MESSAGE(up, read_text(dir.file("job.out")));
}

TEST_CASE("the site is detected from SLURM_CLUSTER_NAME inside a job") {
  const ProcessResult r = run({"/usr/bin/salloc", "--quiet", "-N", "1", HVDRUN_EXE, "--dry-run",
                               "--", RANK_PROBE_EXE, "env"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(json::parse(r.out).at("slurm").at("profile").at("name") == "hvdtest");
}

TEST_CASE("sbatch rejecting the script is a scheduler error that shows sbatch's words") {
  const ProcessResult r = run(hvdrun({"sbatch", "--profile", kProfile, "-t", "00:05:00", "-p",
                                      "no-such-partition", "--submit", "--", "/bin/true"}));
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("hvdrun: error: sbatch rejected the script: ") == 0);
  CHECK(r.err.find("artition") != std::string::npos);  // Slurm's own "invalid partition" text
}

TEST_CASE("libhvd across both nodes: runtime_probe under hvdrun inside salloc") {
  const ProcessResult r = run({"/usr/bin/salloc", "--quiet", "-N", "2", "--ntasks-per-node=2",
                               HVDRUN_EXE, "--profile", kProfile, "--", RUNTIME_PROBE_EXE});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("runtime_probe: 4 ranks ok") != std::string::npos);
}

TEST_CASE("hierarchical allreduce across both nodes: shared memory within, TCP between") {
  TempDir dir;
  const std::string trace = dir.file("trace.json");
  const ProcessResult r = run({"/usr/bin/salloc", "--quiet", "-N", "2", "--ntasks-per-node=2",
                               HVDRUN_EXE, "--profile", kProfile, "--hierarchical-allreduce",
                               "--timeline-filename", trace, "--", RUNTIME_PROBE_EXE});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("runtime_probe: 4 ranks ok") != std::string::npos);
  // The allreduces ran on the hierarchical backend (two hosts of two ranks), not the flat ring.
  std::set<std::string> phases;
  for (const json& e : json::parse(read_text(trace))) phases.insert(e.value("name", ""));
  CHECK(phases.count("RING/HIERARCHICAL/TCP_ALLREDUCE") == 1);
}

TEST_CASE(
    "--dry-run inside an allocation: no --mpi for srun unless asked, --tf-config lists workers") {
  const ProcessResult plain = run(salloc({"--dry-run", "--", RANK_PROBE_EXE, "env"}));
  REQUIRE_MESSAGE(plain.exit_code == 0, plain.err);
  CHECK(json::parse(plain.out).at("starter").at("line").get<std::string>().find("--mpi") ==
        std::string::npos);

  const ProcessResult r = run(salloc({"--tf-config", "--dry-run", "--", RANK_PROBE_EXE, "env"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json plan = json::parse(r.out);
  REQUIRE(plan.at("ranks").size() == 8);
  const auto port = [](const std::string& worker) {
    return std::stoi(worker.substr(worker.rfind(':') + 1));
  };
  for (int rank = 0; rank < 8; ++rank) {
    CAPTURE(rank);
    const json tf =
        json::parse(plan.at("ranks").at(rank).at("env").at("TF_CONFIG").get<std::string>());
    CHECK(tf.at("task").at("index") == rank);
    const auto list = tf.at("cluster").at("worker").get<std::vector<std::string>>();
    REQUIRE(list.size() == 8);
    // Node address (NodeAddr 127.0.0.1 for both nodes here) and the job's base + local rank.
    for (size_t i = 0; i < list.size(); ++i) {
      CHECK(list[i].rfind("127.0.0.1:", 0) == 0);
      CHECK(port(list[i]) == port(list[0]) + static_cast<int>(i % 4));
    }
  }
}

TEST_CASE("a 2 MiB line ending in another rank's label stays the rank's own output") {
  // srun 22.05 --label cuts a long line into labelled 1 KiB pieces (measured on this cluster),
  // so the piece holding "0: forged-by-R" still carries R's label; hvdrun must keep it R's and
  // must not crash on it (before: a piece read as an srun message could end hvdrun with 70).
  const ProcessResult r =
      run(salloc({"--", RANK_PROBE_EXE, "long-line", "2097152"}), {}, std::chrono::seconds(120));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  int forged = 0;
  size_t bytes = 0;
  for (const std::string& line : split_lines(r.out)) {
    const TaggedLine t = parse_tag(line);
    REQUIRE(t.rank >= 0);
    bytes += t.text.size();
    const auto at = t.text.find("forged-by-");
    if (at == std::string::npos) continue;
    ++forged;
    CHECK(t.text.substr(at + 10) == std::to_string(t.rank));
  }
  CHECK(forged == 8);
  CHECK(bytes >= 8u * 2097152u);
}
