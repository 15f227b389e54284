// SPDX-License-Identifier: Apache-2.0
// --max-restarts: a failed job is stopped and started again from a new rendezvous, with
// torchrun's rules (exec/restart_policy.h).

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <doctest/doctest.h>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;

namespace {

// A rank as a shell script: `body` runs with the rank's environment.
std::vector<std::string> sh_ranks(int np, int max_restarts, const std::string& body,
                                  std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"-np", std::to_string(np), "--max-restarts",
                                   std::to_string(max_restarts)};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--", "/bin/sh", "-c", body});
  return hvdrun(args);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("restarts: rank 1 fails once, the restarted job ends cleanly with exit 0") {
  const ProcessResult r = run(sh_ranks(
      2, 2,
      "echo \"attempt $TORCHELASTIC_RESTART_COUNT of max $TORCHELASTIC_MAX_RESTARTS\"; "
      "if [ \"$HOROVOD_RANK\" = 1 ] && [ \"$TORCHELASTIC_RESTART_COUNT\" = 0 ]; then exit 3; fi"));
  CHECK(r.exit_code == 0);
  CHECK(count(r.err, "hvdrun: restart 1 of 2 after rank 1 failed (exit 3)") == 1);
  CHECK(count(r.err, "hvdrun: restart 2") == 0);  // a clean attempt ends the job
  CHECK(count(r.out, "[1]<stdout>:attempt 0 of max 2") == 1);
  CHECK(count(r.out, "[0]<stdout>:attempt 1 of max 2") == 1);
  CHECK(count(r.out, "[1]<stdout>:attempt 1 of max 2") == 1);
}

TEST_CASE("restarts: when they run out, hvdrun exits with the last failing rank's code") {
  // Rank 1 fails with 10, then 11, then 12: the job's code is the last attempt's.
  const ProcessResult r = run(sh_ranks(
      2, 2,
      "if [ \"$HOROVOD_RANK\" = 1 ]; then exit $((10 + TORCHELASTIC_RESTART_COUNT)); fi; "
      "exec sleep 60"));
  CHECK(r.exit_code == 12);
  CHECK(count(r.err, "hvdrun: restart 1 of 2 after rank 1 failed (exit 10)") == 1);
  CHECK(count(r.err, "hvdrun: restart 2 of 2 after rank 1 failed (exit 11)") == 1);
  CHECK(count(r.err, "hvdrun: restart 3") == 0);
  CHECK(count(r.err, "exited with code 12") == 1);
}

TEST_CASE("restarts: a rank killed by a signal counts as a failure (128+signal)") {
  const ProcessResult r = run(sh_ranks(
      2, 1,
      "if [ \"$HOROVOD_RANK\" = 0 ] && [ \"$TORCHELASTIC_RESTART_COUNT\" = 0 ]; then "
      "kill -SEGV $$; fi"));
  CHECK(r.exit_code == 0);
  CHECK(count(r.err, "restart 1 of 1 after rank 0 failed (exit 139)") == 1);
}

TEST_CASE("restarts: without --max-restarts the first failure ends the job, as before") {
  const ProcessResult r = run(hvdrun({"-np", "2", "--", "/bin/sh", "-c",
                                      "[ \"$HOROVOD_RANK\" = 1 ] && exit 3; exec sleep 60"}));
  CHECK(r.exit_code == 3);
  CHECK(count(r.err, "restart") == 0);
}

TEST_CASE("restarts: SIGTERM to hvdrun ends the job and is never a reason to restart") {
  TempDir dir;
  Subprocess p(hvdrun({"-np", "2", "--max-restarts", "3", "--", RANK_PROBE_EXE, "trap",
                       dir.path()}));
  REQUIRE(wait_for_files(dir.path(), "pid", 2));
  const auto pids = read_pids(dir.path(), "pid");
  p.send(SIGTERM);
  const ProcessResult r = p.wait();
  CHECK(r.exit_code == 128 + SIGTERM);
  CHECK(count(r.err, "restart") == 0);
  CHECK(wait_until_dead(pids));
}

TEST_CASE("restarts: each attempt has its own run id, secret and store") {
  // Every rank prints its attempt's rendezvous; rank 1 fails in the first attempt only.
  const ProcessResult r = run(sh_ranks(
      2, 1,
      "echo \"$TORCHELASTIC_RESTART_COUNT $HVD_RUN_ID $HVD_RUN_SECRET $HVD_STORE_PORT\"; "
      "if [ \"$HOROVOD_RANK\" = 1 ] && [ \"$TORCHELASTIC_RESTART_COUNT\" = 0 ]; then exit 3; fi"));
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::set<std::string>> ids, secrets;  // per attempt
  for (const std::string& line : split_lines(r.out)) {
    const TaggedLine t = parse_tag(line);
    if (t.rank < 0) continue;
    std::istringstream in(t.text);
    std::string attempt, run_id, secret, port;
    in >> attempt >> run_id >> secret >> port;
    ids[attempt].insert(run_id);
    secrets[attempt].insert(secret);
  }
  REQUIRE(ids.size() == 2);
  for (const auto& [attempt, set] : ids) CHECK(set.size() == 1);  // one per attempt, all ranks
  for (const auto& [attempt, set] : secrets) CHECK(set.size() == 1);
  CHECK(*ids["0"].begin() != *ids["1"].begin());
  CHECK(*secrets["0"].begin() != *secrets["1"].begin());
  CHECK(secrets["1"].begin()->size() == 64);
}

TEST_CASE("restarts: --output-filename keeps one log per rank, appended, with the restart marked") {
  TempDir dir;
  // Rank 1 fails only once rank 0 has printed, so that both logs hold both attempts.
  const ProcessResult r = run(sh_ranks(
      2, 1,
      "printf 'no newline at the end in attempt %s' \"$TORCHELASTIC_RESTART_COUNT\"; "
      "touch \"" + dir.file("printed.") + "$HOROVOD_RANK.$TORCHELASTIC_RESTART_COUNT\"; "
      "if [ \"$HOROVOD_RANK\" = 1 ] && [ \"$TORCHELASTIC_RESTART_COUNT\" = 0 ]; then "
      "  while [ ! -e \"" + dir.file("printed.0.0") + "\" ]; do sleep 0.01; done; exit 3; "
      "fi",
      {"--output-filename", dir.file("logs")}));
  REQUIRE(r.exit_code == 0);
  for (const char* rank : {"rank.0", "rank.1"}) {
    CAPTURE(rank);
    const std::string log = read_text(dir.file("logs/") + rank + "/stdout");
    CHECK(log ==
          "no newline at the end in attempt 0\n"
          "hvdrun: restart 1 of 1 after rank 1 failed (exit 3)\n"
          "no newline at the end in attempt 1");
  }
}

TEST_CASE("restarts: --dry-run shows max_restarts and the first attempt's count") {
  const ProcessResult r = run(hvdrun({"-np", "2", "--max-restarts", "4", "--dry-run", "--",
                                      "/bin/true"}));
  REQUIRE(r.exit_code == 0);
  const auto plan = nlohmann::json::parse(r.out);
  CHECK(plan.at("settings").at("launcher").at("max_restarts") == 4);
  for (const auto& rank : plan.at("ranks")) {
    CHECK(rank.at("env").at("TORCHELASTIC_RESTART_COUNT") == "0");
    CHECK(rank.at("env").at("TORCHELASTIC_MAX_RESTARTS") == "4");
  }
}

TEST_CASE("restarts: a negative --max-restarts is a usage error") {
  const ProcessResult r = run(hvdrun({"-np", "1", "--max-restarts", "-1", "--", "/bin/true"}));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--max-restarts") != std::string::npos);
}

TEST_CASE("restarts: --mpi starts a new mpirun, whose ranks get the restart count" *
          doctest::skip(!std::filesystem::exists("/usr/bin/mpirun"))) {
  const ProcessResult r = run(hvdrun(
      {"--mpi", "-np", "2", "--max-restarts", "1", "--", "/bin/sh", "-c",
       "echo \"attempt $TORCHELASTIC_RESTART_COUNT of $TORCHELASTIC_MAX_RESTARTS\"; "
       "if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ] && [ \"$TORCHELASTIC_RESTART_COUNT\" = 0 ]; then "
       "exit 3; fi"}));
  CHECK(r.exit_code == 0);
  CHECK(count(r.err, "hvdrun: restart 1 of 1 after mpirun failed (exit 3)") == 1);
  CHECK(count(r.out, "[0]<stdout>:attempt 1 of 1") == 1);
  CHECK(count(r.out, "[1]<stdout>:attempt 1 of 1") == 1);
}

// Issue 23, finding 7: the checkpoint-notice file of a notice in a restarted attempt stayed in
// /dev/shm after the job, named after the first attempt's run id, which no cleanup looked for.
TEST_CASE("restarts: a notice in a restarted attempt leaves no checkpoint-notice file behind") {
  TempDir dir;
  const std::string said = dir.path() + "/cpfile.0";  // wait_for_files: PREFIX.*, not *.tmp
  Subprocess p(sh_ranks(
      1, 1,
      "if [ \"$TORCHELASTIC_RESTART_COUNT\" = 0 ]; then exit 3; fi; trap true USR1; "
      "echo \"$HVD_CHECKPOINT_FILE\" > " +
          said + ".tmp && mv " + said + ".tmp " + said +
          "; n=0; while [ ! -e \"$HVD_CHECKPOINT_FILE\" ] && [ $n -lt 400 ]; do sleep 0.05; "
          "n=$((n+1)); done; [ -e \"$HVD_CHECKPOINT_FILE\" ]"));
  REQUIRE(wait_for_files(dir.path(), "cpfile", 1));
  std::string file;
  std::ifstream(said) >> file;
  REQUIRE(file.rfind("/dev/shm/hvd-", 0) == 0);
  p.send(SIGUSR1);
  const ProcessResult r = p.wait();
  CHECK(r.exit_code == 0);  // the rank saw the file
  CHECK(count(r.err, "restart 1 of 1") == 1);
  CHECK_FALSE(std::filesystem::exists(file));
}
