// SPDX-License-Identifier: Apache-2.0
// hvd-store-sim: hvdrun's rendezvous store serving a simulated N-rank bootstrap on one machine.
//
// The parent process hosts a real KvServer (the limits hvdrun would pick for N ranks, the run's
// secret) and starts P worker processes of itself, each running N/P ranks as threads; the
// ranks' connections then use P processes' descriptors, while the server holds all N, as
// hvdrun does. Each rank does against the store what a real rank's start does, over its own
// connection (bootstrap::RendezvousStore, as libhvd uses it):
//   1. connect and prove the run's secret (hvdrun_bootstrap: HVD_RUN_SECRET);
//   2. publish its ring address, barrier, read its two ring neighbours' addresses
//      (what a ring needs; see the report for the TCP mesh, which reads more);
//   3. a closing barrier (the runtime's first collective needs every rank up).
// hvdrun sets local and cross ranks, so topology's host-name allgather (N names per rank) is
// not part of a rank's start, and is not simulated.
//
// Usage: hvd-store-sim --ranks N [--procs P]. Prints one line: ranks, seconds from starting the
// workers until all exited, peak connections, peak bytes stored and peak bytes buffered.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "auth/run_secret.h"
#include "bootstrap/rendezvous_store.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "store/kv_client.h"
#include "store/kv_server.h"

extern char** environ;

namespace {

using std::chrono::milliseconds;
constexpr milliseconds kTimeout(600000);
constexpr const char* kRunId = "sim";

std::map<std::string, std::string> read_environ() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq != nullptr)
      env.emplace(std::string(*e, static_cast<size_t>(eq - *e)), std::string(eq + 1));
  }
  return env;
}

// One rank's start against the store (see the top of the file).
void simulate_rank(const std::map<std::string, std::string>& env, int rank, int size) {
  hvd::bootstrap::RendezvousStore store(hvd::store::connect_from_env(env, kTimeout), kRunId, rank,
                                        size);
  const auto key = [](int r) { return hvd::str_cat("ring/tcp/", r); };
  store.set(key(rank), hvd::str_cat("10.0.", rank / 256, ".", rank % 256, ":40000"));
  store.barrier("ring/tcp", kTimeout);
  store.get(key((rank + 1) % size), kTimeout);
  store.get(key((rank + size - 1) % size), kTimeout);
  store.barrier("ready", kTimeout);
}

// A worker process: ranks [first, first + count) as threads with small stacks.
int run_worker(int first, int count, int size) {
  const std::map<std::string, std::string> env = read_environ();
  std::vector<pthread_t> threads(static_cast<size_t>(count));
  struct Job {
    const std::map<std::string, std::string>* env;
    int rank, size;
    bool failed;
  };
  std::vector<Job> jobs(static_cast<size_t>(count));
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t{256} << 10);
  for (int i = 0; i < count; ++i) {
    jobs[static_cast<size_t>(i)] = {&env, first + i, size, false};
    const int rc = pthread_create(
        &threads[static_cast<size_t>(i)], &attr,
        [](void* arg) -> void* {
          auto* job = static_cast<Job*>(arg);
          try {
            simulate_rank(*job->env, job->rank, job->size);
          } catch (const std::exception& e) {
            std::fprintf(stderr, "rank %d: %s\n", job->rank, e.what());
            job->failed = true;
          }
          return nullptr;
        },
        &jobs[static_cast<size_t>(i)]);
    if (rc != 0) {
      std::fprintf(stderr, "worker: cannot start thread %d: %s\n", i, std::strerror(rc));
      std::_Exit(1);
    }
  }
  int failed = 0;
  for (int i = 0; i < count; ++i) {
    pthread_join(threads[static_cast<size_t>(i)], nullptr);
    failed += jobs[static_cast<size_t>(i)].failed ? 1 : 0;
  }
  return failed == 0 ? 0 : 1;
}

int run_parent(int size, int procs) {
  rlimit nofile{};
  getrlimit(RLIMIT_NOFILE, &nofile);
  nofile.rlim_cur = nofile.rlim_max;  // as hvdrun does for itself
  setrlimit(RLIMIT_NOFILE, &nofile);
  const hvd::auth::RunSecret secret = hvd::auth::RunSecret::generate();
  hvd::store::KvServer server("127.0.0.1", 0, secret, hvd::store::StoreLimits::for_ranks(size));

  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  env_strings.push_back(hvd::str_cat(hvd::env::kStoreAddr, "=127.0.0.1"));
  env_strings.push_back(hvd::str_cat(hvd::env::kStorePort, "=", server.port()));
  env_strings.push_back(hvd::str_cat(hvd::env::kRunSecret, "=", secret.hex()));
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  std::vector<pid_t> pids;
  for (int p = 0; p < procs; ++p) {
    const int first = static_cast<int>(static_cast<int64_t>(size) * p / procs);
    const int next = static_cast<int>(static_cast<int64_t>(size) * (p + 1) / procs);
    std::vector<std::string> args = {"hvd-store-sim", "--worker", std::to_string(first),
                                     std::to_string(next - first), std::to_string(size)};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data()) != 0) {
      throw hvd::LaunchError("hvd-store-sim: cannot start a worker process");
    }
    pids.push_back(pid);
  }
  int failures = 0;
  for (const pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    failures += WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const hvd::store::StoreStats s = server.stats();
  std::printf(
      "ranks=%d procs=%d seconds=%.3f peak_connections=%zu authenticated=%zu "
      "peak_stored_bytes=%zu peak_buffered_bytes=%zu rejected=%zu evicted=%zu failed_procs=%d\n",
      size, procs, seconds, s.peak_connections, s.authenticated_total, s.peak_stored_bytes,
      s.peak_buffered_bytes, s.rejected, s.evicted, failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 4 && args[0] == "--worker") {
      return run_worker(std::stoi(args[1]), std::stoi(args[2]), std::stoi(args[3]));
    }
    int ranks = 0;
    int procs = 0;
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
      if (args[i] == "--ranks") ranks = std::stoi(args[i + 1]);
      if (args[i] == "--procs") procs = std::stoi(args[i + 1]);
    }
    if (ranks < 1) {
      std::fprintf(stderr, "usage: hvd-store-sim --ranks N [--procs P]\n");
      return 2;
    }
    if (procs < 1) procs = std::max(1, (ranks + 2047) / 2048);
    return run_parent(ranks, procs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hvd-store-sim: %s\n", e.what());
    return 1;
  }
}
