// SPDX-License-Identifier: Apache-2.0
// hvd-ring-scale: bootstrap time and sockets per rank of the TCP ring at simulated scale.
//
//   hvd-ring-scale --ranks N [--procs P] [--full-mesh]
//
// N ranks run as threads in P forked processes (each process has its own descriptor table,
// so N * sockets-per-rank may exceed one process's limit), against one real rendezvous store
// (store::KvServer) in the parent, each rank through its own RendezvousStore connection, as
// under hvdrun. Every rank builds a TcpTransport (the O(log N) peers, or every rank with
// --full-mesh: the scheme before, kept only as this baseline), then runs one 8-byte allreduce
// and one control-channel gather to rank 0. Prints one line of JSON with the slowest rank's
// times and the most sockets any rank held at once (its store connection included).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/rendezvous_store.h"
#include "core/transport_channel.h"
#include "hvd/error.h"
#include "store/kv_client.h"
#include "store/kv_server.h"
#include "transport/tcp/tcp_transport.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace ring = hvd::backends::ring;

struct Result {  // the worst over a process's ranks
  double setup_s = 0;
  double total_s = 0;
  uint64_t peak_sockets = 0;
  uint64_t sockets_after = 0;
  uint64_t failures = 0;
};

void raise_fd_limit() {
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
}

// Each process listens on its own loopback address (127.0.0.1 to 127.0.0.254): listeners take
// their port from the ephemeral range, which one address runs out of at about 16,000 ranks.
std::string listen_host(int process) { return "127.0.0." + std::to_string(1 + process % 254); }

// One connection to the store at a time per process: thousands of simultaneous connects
// overflow the store's listen backlog (the server resets them), which is a store limit, not
// what this tool measures. Replies may take long with thousands of ranks on a few cores.
hvd::store::KvClient connect_store(uint16_t port, const hvd::auth::RunSecret& secret) {
  static std::mutex one_at_a_time;
  const std::lock_guard<std::mutex> lock(one_at_a_time);
  return hvd::store::KvClient("127.0.0.1", port, secret, std::chrono::minutes(10),
                              std::chrono::minutes(10));
}

// The worst of each figure over the ranks, and the failures of all.
void fold_worst(Result& worst, const Result& r) {
  worst.setup_s = std::max(worst.setup_s, r.setup_s);
  worst.total_s = std::max(worst.total_s, r.total_s);
  worst.peak_sockets = std::max(worst.peak_sockets, r.peak_sockets);
  worst.sockets_after = std::max(worst.sockets_after, r.sockets_after);
  worst.failures += r.failures;
}

Result run_ranks(const std::string& host, uint16_t port, int first, int count, int size,
                 bool full_mesh, const hvd::auth::RunSecret& secret, Clock::time_point start) {
  std::vector<Result> results(static_cast<size_t>(count));
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      Result& res = results[static_cast<size_t>(i)];
      const int rank = first + i;
      try {
        hvd::bootstrap::RendezvousStore store(connect_store(port, secret), "scale", rank, size);
        ring::TcpOptions o;
        o.advertise_host = host;
        o.setup_timeout = std::chrono::minutes(10);
        o.timeout = std::chrono::minutes(10);
        o.connect_all_at_setup = full_mesh;
        auto t = std::make_unique<ring::TcpTransport>(store, rank, size, secret, o);
        res.setup_s = std::chrono::duration<double>(Clock::now() - start).count();
        res.peak_sockets = t->peak_sockets() + 1;  // + the store connection
        res.sockets_after = t->connections();
        hvd::core::TransportChannel channel(std::move(t));
        std::vector<uint64_t> bits{~uint64_t{0}};
        channel.vote(bits, 1, {});  // an 8-byte allreduce (recursive doubling)
        const auto all = channel.gather(std::to_string(rank), 0);
        if (bits[0] != ~uint64_t{0} || (rank == 0 && all.size() != size_t(size))) {
          throw hvd::InternalError("wrong allreduce or gather result");
        }
        res.total_s = std::chrono::duration<double>(Clock::now() - start).count();
      } catch (const std::exception& e) {
        std::cerr << "rank " << rank << ": " << e.what() << "\n";
        res.failures = 1;
      }
    });
  }
  for (auto& t : threads) t.join();
  Result worst;
  for (const Result& r : results) {
    fold_worst(worst, r);
  }
  return worst;
}

// --ranks N [--procs P] [--full-mesh]; false (after a message) for anything else.
bool parse_args(int argc, char** argv, int& ranks, int& procs, bool& full_mesh) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--ranks" && i + 1 < argc) {
      ranks = std::atoi(argv[++i]);
    } else if (arg == "--procs" && i + 1 < argc) {
      procs = std::atoi(argv[++i]);
    } else if (arg == "--full-mesh") {
      full_mesh = true;
    } else {
      std::cerr << "usage: hvd-ring-scale --ranks N [--procs P] [--full-mesh]\n";
      return false;
    }
  }
  if (ranks < 1 || procs < 1 || procs > ranks) {
    std::cerr << "hvd-ring-scale: need 1 <= --procs <= --ranks\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int ranks = 0;
  int procs = 1;
  bool full_mesh = false;
  if (!parse_args(argc, argv, ranks, procs, full_mesh)) return 2;
  raise_fd_limit();
  const hvd::auth::RunSecret secret = hvd::auth::RunSecret::generate();
  hvd::store::KvServer server("127.0.0.1", 0, secret,
                              hvd::store::StoreLimits::for_ranks(ranks));
  const auto start = Clock::now();
  std::vector<pid_t> children;
  std::vector<int> pipes;
  for (int p = 0; p < procs; ++p) {
    int fds[2];
    if (pipe(fds) != 0) return 1;
    const int first = static_cast<int>(static_cast<int64_t>(ranks) * p / procs);
    const int last = static_cast<int>(static_cast<int64_t>(ranks) * (p + 1) / procs);
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      const Result r = run_ranks(listen_host(p), server.port(), first, last - first, ranks,
                                 full_mesh, secret, start);
      const ssize_t n = write(fds[1], &r, sizeof(r));
      _exit(n == static_cast<ssize_t>(sizeof(r)) ? 0 : 1);
    }
    close(fds[1]);
    children.push_back(pid);
    pipes.push_back(fds[0]);
  }
  Result worst;
  for (size_t p = 0; p < children.size(); ++p) {
    Result r;
    if (read(pipes[p], &r, sizeof(r)) != static_cast<ssize_t>(sizeof(r))) r.failures = 1;
    waitpid(children[p], nullptr, 0);
    close(pipes[p]);
    fold_worst(worst, r);
  }
  std::printf(
      "{\"ranks\": %d, \"procs\": %d, \"scheme\": \"%s\", \"bootstrap_s\": %.3f, "
      "\"bootstrap_allreduce_gather_s\": %.3f, \"peak_sockets_per_rank\": %llu, "
      "\"peer_sockets_after_setup\": %llu, \"failed_ranks\": %llu}\n",
      ranks, procs, full_mesh ? "full-mesh" : "log-peers", worst.setup_s, worst.total_s,
      static_cast<unsigned long long>(worst.peak_sockets),
      static_cast<unsigned long long>(worst.sockets_after),
      static_cast<unsigned long long>(worst.failures));
  return worst.failures == 0 ? 0 : 1;
}
