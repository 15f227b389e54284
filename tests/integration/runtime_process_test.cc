// SPDX-License-Identifier: Apache-2.0
// libhvd in real processes under hvdrun: a dead peer, and the merged timeline.

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;

TEST_CASE("a peer killed mid-run fails every survivor's pending work with a clear error") {
  for (const char* transport : {"shm", "tcp"}) {
    CAPTURE(transport);
    const ProcessResult r = run(hvdrun({"-np", "3", "--kill-grace-seconds", "60", "--",
                                        RUNTIME_PROBE_EXE, "kill-rank", "1"}),
                                {{"HVD_RING_TRANSPORT", transport}});
    // The victim's SIGKILL (137), or a survivor's own exit (4) when hvdrun reaps both at once.
    CHECK((r.exit_code == 137 || r.exit_code == 4));
    for (int survivor : {0, 2}) {
      const std::string said = "[" + std::to_string(survivor) + "]<stderr>:rank " +
                               std::to_string(survivor) + ": survivor error: ring " + transport;
      CHECK_MESSAGE(r.err.find(said) != std::string::npos, r.err);
    }
    CHECK(r.err.find("rank 1") != std::string::npos);  // the error names the dead peer
  }
}

TEST_CASE("init() works again after shutdown() in the same process") {
  const ProcessResult r = run(hvdrun({"-np", "3", "--", RUNTIME_PROBE_EXE, "reinit"}));
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  for (int rank = 0; rank < 3; ++rank) {
    CHECK(r.out.find("[" + std::to_string(rank) + "]<stdout>:runtime_probe: reinit 3 rounds ok") !=
          std::string::npos);
  }
}

namespace {

// The tracks of a merged trace as Perfetto reads them: every event on a named track (tid 0 is
// "marks"), each tensor's phases nested like a stack (an E closes the last open B of the same
// name) in time order, all closed at the end, and NEGOTIATE first on every tensor's track.
void check_tracks(const json& trace) {
  std::map<std::pair<int, int>, std::string> track_names;  // (pid, tid) -> name
  for (const json& e : trace) {
    if (e.value("name", "") == "thread_name") {
      track_names[{e.at("pid").get<int>(), e.at("tid").get<int>()}] = e["args"]["name"];
    }
  }
  std::map<std::pair<int, int>, std::vector<std::string>> open;  // per track
  std::map<std::pair<int, int>, std::string> first_phase;
  std::map<std::pair<int, int>, double> last_ts;
  for (const json& e : trace) {
    const std::string ph = e.value("ph", "");
    if (ph == "M") continue;
    const std::pair<int, int> track{e.at("pid").get<int>(), e.at("tid").get<int>()};
    INFO("event " << e.dump());
    REQUIRE(track_names.count(track) == 1);
    const double ts = e.at("ts").get<double>();
    CHECK(ts >= last_ts[track]);
    last_ts[track] = ts;
    if (ph == "i") {
      CHECK(track.second == 0);
    } else if (ph == "B") {
      if (first_phase.count(track) == 0) first_phase[track] = e["name"];
      open[track].push_back(e["name"]);
    } else {
      REQUIRE(ph == "E");
      REQUIRE_FALSE(open[track].empty());
      CHECK(open[track].back() == e["name"]);
      open[track].pop_back();
    }
  }
  // Not structured bindings: clang (C++17) cannot capture them in doctest's message lambda.
  for (const auto& entry : open) CHECK_MESSAGE(entry.second.empty(), track_names[entry.first]);
  CHECK(first_phase.size() > 3);
  for (const auto& entry : first_phase) CHECK(entry.second == "NEGOTIATE");
}

}  // namespace

TEST_CASE("--timeline-filename gives one merged trace with a track group per rank") {
  TempDir dir;
  const std::string base = dir.file("trace.json");
  const ProcessResult r =
      run(hvdrun({"-np", "3", "--timeline-filename", base, "--", RUNTIME_PROBE_EXE}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("timeline of 3 rank(s) written to " + base) != std::string::npos);
  const json trace = json::parse(read_text(base));
  std::set<int> pids;
  std::set<std::string> phases;
  size_t negotiations = 0;
  for (const json& e : trace) {
    pids.insert(e.at("pid").get<int>());
    if (e.value("ph", "") == "B") phases.insert(e.at("name").get<std::string>());
    // Begun once per cycle on the cycle's requests; each tensor still shows its own args.
    if (e.value("ph", "") == "B" && e.value("name", "") == "NEGOTIATE") {
      ++negotiations;
      INFO("event " << e.dump());
      CHECK(e.contains("args"));
      CHECK(e.value("args", json::object()).contains("dtype"));
      CHECK(e.value("args", json::object()).contains("size"));
    }
  }
  CHECK(negotiations > 3);
  CHECK(pids == std::set<int>{0, 1, 2});
  for (const char* phase :
       {"NEGOTIATE", "RING/SHM_ALLREDUCE", "RING/SHM_ALLGATHER", "RING/SHM_BROADCAST"}) {
    CHECK_MESSAGE(phases.count(phase) == 1, phase);
  }
  // The ring reduces a fused response's tensors where they lie: no fusion buffer copies.
  for (const char* phase : {"MEMCPY_IN_FUSION_BUFFER", "MEMCPY_OUT_FUSION_BUFFER"}) {
    CHECK_MESSAGE(phases.count(phase) == 0, phase);
  }
  check_tracks(trace);
}

// Issue 23, finding 3: the rank files had names anyone could predict beside a timeline in a
// shared folder. A FIFO planted at one blocked the merge for good; another user's plain file
// made the job fail at start (or, for a user allowed to replace it, was written over). Now the
// names hold HVD_TIMELINE_TAG's random part, and what sits at the old names is left alone.
TEST_CASE("--timeline-filename: files planted at the ranks' predictable names change nothing") {
  TempDir dir;
  const std::string base = dir.file("trace.json");
  const std::string fifo = dir.file("trace.rank1.bin");
  const std::string plain = dir.file("trace.rank0.bin");
  REQUIRE(mkfifo(fifo.c_str(), 0666) == 0);
  write_text(plain, "planted");
  const ProcessResult r =
      run(hvdrun({"-np", "2", "--timeline-filename", base, "--", RUNTIME_PROBE_EXE}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(r.err.find("timeline of 2 rank(s) written to " + base) != std::string::npos, r.err);
  CHECK(r.err.find("timeline: rank") == std::string::npos);  // no rank reported missing
  CHECK(std::filesystem::is_fifo(fifo));
  CHECK(read_text(plain) == "planted");
  std::set<int> pids;
  for (const json& e : json::parse(read_text(base))) pids.insert(e.at("pid").get<int>());
  CHECK(pids == std::set<int>{0, 1});
}

TEST_CASE("the merged timeline is valid JSON even when a rank was killed") {
  TempDir dir;
  const std::string base = dir.file("trace.json");
  const ProcessResult r = run(
      hvdrun({"-np", "3", "--timeline-filename", base, "--", RUNTIME_PROBE_EXE, "kill-rank", "2"}),
      {{"HVD_RING_TRANSPORT", "tcp"}});
  CHECK((r.exit_code == 137 || r.exit_code == 4));
  const json trace = json::parse(read_text(base));  // throws (fails the test) if invalid
  std::set<int> pids;
  for (const json& e : trace) pids.insert(e.at("pid").get<int>());
  CHECK(pids.count(0) == 1);
  CHECK(pids.count(2) == 1);  // the killed rank's events up to its death
}

TEST_CASE("with --max-restarts every attempt keeps its trace: NAME.attempt-K.json, the last NAME") {
  TempDir dir;
  const std::string base = dir.file("trace.json");
  const ProcessResult r = run(hvdrun({"-np", "3", "--max-restarts", "1", "--timeline-filename",
                                      base, "--", RUNTIME_PROBE_EXE, "kill-rank", "2"}),
                              {{"HVD_RING_TRANSPORT", "tcp"}});
  CHECK((r.exit_code == 137 || r.exit_code == 4));
  CHECK_MESSAGE(r.err.find("written to " + dir.file("trace.attempt-0.json")) != std::string::npos,
                r.err);
  for (const std::string& file : {dir.file("trace.attempt-0.json"), base}) {
    const json trace = json::parse(read_text(file));  // throws (fails the test) if invalid
    std::set<int> pids;
    for (const json& e : trace) pids.insert(e.at("pid").get<int>());
    CHECK_MESSAGE(pids.count(0) == 1, file);
    CHECK_MESSAGE(pids.count(2) == 1, file);
  }
  CHECK(!std::filesystem::exists(dir.file("trace.attempt-1.json")));  // the last is NAME
}

TEST_CASE("the stall inspector names a tensor that one rank is late for, and its rank") {
  // Rank 2 enqueues "late.tensor" 1.5 s after the others; the warning threshold is 0.3 s.
  const ProcessResult r = run(hvdrun({"-np", "3", "--", RUNTIME_PROBE_EXE, "stall", "2", "1.5"}),
                              {{"HOROVOD_STALL_CHECK_TIME_SECONDS", "0.3"}});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);  // a stall is a warning: the tensor still completes
  // Logged by the coordinator (rank 0), whose output hvdrun tags with its rank.
  CHECK_MESSAGE(r.err.find("[0]<stderr>:[missing ranks: 2] tensor: late.tensor") !=
                    std::string::npos,
                r.err);
}

TEST_CASE("--hierarchical-allreduce on one host runs the hierarchical backend") {
  TempDir dir;
  const std::string base = dir.file("trace.json");
  const ProcessResult r = run(hvdrun({"-np", "4", "--hierarchical-allreduce", "--timeline-filename",
                                      base, "--", RUNTIME_PROBE_EXE}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::set<std::string> phases;
  for (const json& e : json::parse(read_text(base))) phases.insert(e.value("name", ""));
  CHECK(phases.count("RING/HIERARCHICAL/SHM_ALLREDUCE") == 1);
  CHECK(phases.count("RING/SHM_BROADCAST") == 0);  // other collectives keep the flat transport,
  CHECK(phases.count("RING/HIERARCHICAL/SHM_BROADCAST") == 1);  // under the backend's name
}
