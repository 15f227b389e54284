// SPDX-License-Identifier: Apache-2.0
// fault_probe: a libhvd rank that stops at a chosen phase so that a test can hit it there with a
// signal (tests/integration/fault_matrix_test.cc).
//
//   fault_probe PHASE VICTIM DIR
//
// Every rank writes DIR/pid.N (and rank 0 DIR/runid) first. The rank VICTIM writes DIR/ready.N
// when it has reached PHASE; what the ranks do there:
//   before-init  the victim waits before hvd::init(); the others go into init and wait for it
//   bootstrap    the others wait for DIR/go before init; the victim goes into init at once
//                (ready is written just before the call)
//   collective   everyone allreduces in a loop; the victim is ready after its third one
//   shutdown     after one allreduce the victim waits for DIR/go before hvd::shutdown(); the
//                others shut down at once
//   segment      no libhvd: every rank creates a shared-memory segment named as the shm
//                transport names its own ("/hvd-<HVD_RUN_ID>-<pid>-..."), with the transport's
//                own code, and writes ready.N; then the victim is SIGKILLed by itself, as a rank
//                killed between creating its segment and the "mapped" barrier is, and the
//                others exit 0 without removing theirs. What is left in /dev/shm afterwards is
//                what the launcher failed to clean (tests/slurm/t0150-exec-rank-shm-cleanup.sh).
// Exit codes: 3 init failed, 4 a collective failed, 5 shutdown failed, 0 done.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "hvd/env_keys.h"
#include "hvd/hvd.h"
#include "transport/shm/shm_segment.h"

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : v;
}

void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";  // skipped by the tests' wait_for_files
  std::ofstream(tmp) << text;
  std::rename(tmp.c_str(), path.c_str());
}

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

void wait_for(const std::string& path) {
  while (!exists(path)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

[[noreturn]] void wait_forever() {
  for (;;) pause();
}

void check(const hvd::Status& s, const char* what, int code) {
  if (s.ok()) return;
  std::fprintf(stderr, "fault_probe: %s: %s\n", what, s.message().c_str());
  std::exit(code);
}

void allreduce_once() {
  std::vector<float> in(1 << 16, 1.0f), out(in.size());
  const hvd::TensorView vin{
      in.data(), hvd::DataType::kFloat32, {static_cast<int64_t>(in.size())}, {}};
  const hvd::TensorView vout{
      out.data(), hvd::DataType::kFloat32, {static_cast<int64_t>(out.size())}, {}};
  check(hvd::allreduce_async("fault.loop", vin, vout, hvd::ReduceOp::kSum).wait(), "allreduce", 4);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: fault_probe PHASE VICTIM DIR\n");
    return 64;
  }
  const std::string phase = argv[1];
  const int rank = std::atoi(env(hvd::env::kRank).c_str());
  const bool victim = rank == std::atoi(argv[2]);
  const std::string dir = argv[3];
  write_file(dir + "/pid." + std::to_string(rank), std::to_string(getpid()));
  if (rank == 0) write_file(dir + "/runid", env(hvd::env::kRunId));
  const std::string ready = dir + "/ready." + std::to_string(rank);

  if (phase == "segment") {
    // Kept past the end: its destructor would unlink the name.
    new hvd::backends::ring::ShmSegment(hvd::backends::ring::ShmSegment::create(
        "/hvd-" + env(hvd::env::kRunId) + "-" + std::to_string(getpid()) + "-probe-" +
            std::to_string(rank),
        0, 1, 4096));
    write_file(ready, "");
    if (victim) raise(SIGKILL);
    _exit(0);
  }
  if (phase == "before-init" && victim) {
    write_file(ready, "");
    wait_forever();
  }
  if (phase == "bootstrap") {
    if (victim) {
      write_file(ready, "");
    } else {
      wait_for(dir + "/go");
    }
  }
  check(hvd::init(), "init", 3);
  if (phase == "collective") {
    for (int i = 0;; ++i) {
      allreduce_once();
      if (victim && i == 2) write_file(ready, "");
    }
  }
  allreduce_once();
  if (phase == "shutdown" && victim) {
    write_file(ready, "");
    wait_for(dir + "/go");
  }
  check(hvd::shutdown(), "shutdown", 5);
  return 0;
}
