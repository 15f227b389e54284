// SPDX-License-Identifier: Apache-2.0
// --idle-timeout: a job none of whose ranks writes output for that long is stopped with exit 8
// and a line naming each rank's last output; a job with any rank writing runs to its end.
// The ranks are shell scripts that never call libhvd. No timing is asserted: the silent job
// sleeps far longer than the test's own limit, so only the watch can end it.

#include <fstream>

#include <doctest/doctest.h>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;

namespace {

std::vector<std::string> sh_ranks(int np, const std::string& timeout, const std::string& body) {
  return hvdrun({"-np", std::to_string(np), "--idle-timeout", timeout, "--kill-grace-seconds",
                 "2", "--", "/bin/sh", "-c", body});
}

}  // namespace

TEST_CASE("idle timeout: a silent job is stopped with exit 8, naming each rank's silence") {
  // Rank 1 says hello once; the others never write. Without the watch this runs for 10 min.
  const ProcessResult r = run(sh_ranks(3, "2", "if [ \"$HOROVOD_RANK\" = 1 ]; then echo hello; "
                                               "fi; exec sleep 600"));
  CHECK(r.exit_code == 8);
  CHECK(r.out.find("[1]<stdout>:hello") != std::string::npos);
  INFO(r.err);
  CHECK(r.err.find("hvdrun: no output from any rank for 2 s (--idle-timeout 2): ranks 0,2 wrote "
                   "nothing since the start at ") != std::string::npos);
  CHECK(r.err.find("rank 1 silent since ") != std::string::npos);
  CHECK(r.err.find("; stopping the job") != std::string::npos);
}

TEST_CASE("idle timeout: one rank writing keeps the job alive while the others are silent") {
  // Rank 0 writes a line every 0.2 s for 3 s, longer than the 1 s timeout; rank 1 is silent
  // until rank 0 is done. Both then exit 0.
  const ProcessResult r = run(sh_ranks(
      2, "1",
      "if [ \"$HOROVOD_RANK\" = 0 ]; then i=0; while [ $i -lt 15 ]; do echo tick $i; "
      "sleep 0.2; i=$((i + 1)); done; else sleep 3; fi"));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("[0]<stdout>:tick 14") != std::string::npos);
  CHECK(r.err.find("no output from any rank") == std::string::npos);
}

TEST_CASE("idle timeout: off by default, set by flag or config file, never negative") {
  TempDir dir;
  const std::string file = dir.file("run.yaml");
  std::ofstream(file) << "launcher:\n  idle_timeout_seconds: 45\n";
  const auto timeout_of = [](std::vector<std::string> flags) {
    flags.insert(flags.begin(), {"-np", "1", "--dry-run"});
    flags.insert(flags.end(), {"--", "/bin/true"});
    const ProcessResult r = run(hvdrun(flags));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return nlohmann::json::parse(r.out).at("settings").at("launcher").at("idle_timeout_seconds");
  };
  CHECK(timeout_of({}) == 0);
  CHECK(timeout_of({"--idle-timeout", "30"}) == 30);
  CHECK(timeout_of({"--config-file", file}) == 45);
  const ProcessResult bad = run(hvdrun({"-np", "1", "--idle-timeout", "-1", "--", "true"}));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--idle-timeout") != std::string::npos);
}
