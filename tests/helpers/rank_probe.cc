// SPDX-License-Identifier: Apache-2.0
// rank_probe: a rank for hvdrun's process-level tests. Each mode does one thing a real program
// might do (print its environment, flood output, fail, die from a signal, catch signals, leave a
// child behind), and leaves evidence (pid files, signal files) for the test to check.
//
//   rank_probe env                         one JSON line with the rank's identity and binding
//   rank_probe flood LINES WIDTH           LINES numbered lines of WIDTH bytes, written in
//                                          ragged pieces to stdout and stderr
//   rank_probe fail RANK CODE DIR          RANK exits CODE once all ranks are up; others wait
//   rank_probe crash RANK SIGNAL DIR       RANK kills itself with SIGNAL once all are up
//   rank_probe trap DIR                    records USR1/USR2/INT/TERM in DIR; exits on INT/TERM
//   rank_probe stubborn DIR                ignores SIGTERM and waits
//   rank_probe orphan DIR                  starts a child that sleeps, writes its pid, exits 0
//   rank_probe exit CODE                   exits CODE at once
//   rank_probe family DIR                  starts a child that sleeps (child.N), then writes
//                                          its own pid (pid.N) and waits
//   rank_probe fds                         prints every open descriptor above 2 as "FD -> TARGET"
//   rank_probe shm-leftover DIR            creates /dev/shm/hvd-<HVD_RUN_ID>-leftover-N (what a
//                                          rank killed during shm setup leaves), writes
//                                          shm.N with its name and pid.N, and waits
//   rank_probe long-line BYTES             one line: BYTES letters, then "0: forged-by-RANK"
//   rank_probe yes DIR                     writes pid.N, then "y" lines to stdout without end
//   rank_probe secret                      one JSON line: HVD_RUN_SECRET, whether it is in this
//                                          process's or its parent's command line, and the
//                                          RLIMIT_NOFILE soft limits of both

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>

#include "hvd/env_keys.h"

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : v;
}
int rank() { return std::atoi(env(hvd::env::kRank).c_str()); }
int size() { return std::atoi(env(hvd::env::kSize).c_str()); }

void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::ofstream(tmp) << text;
  std::rename(tmp.c_str(), path.c_str());  // atomic: readers never see half a file
}
bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}
void write_pid(const std::string& dir) {
  write_file(dir + "/pid." + std::to_string(rank()), std::to_string(getpid()));
}
// Waits until every rank has written its pid file, so that failures happen with all ranks up.
void wait_all_up(const std::string& dir) {
  for (int r = 0; r < size(); ++r) {
    while (!exists(dir + "/pid." + std::to_string(r))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}
[[noreturn]] void wait_forever() {
  for (;;) pause();
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

int print_env() {
  const char* keys[] = {hvd::env::kRank, hvd::env::kSize, hvd::env::kLocalRank,
                        hvd::env::kLocalSize, hvd::env::kCrossRank, hvd::env::kCrossSize,
                        hvd::env::kHostname, hvd::env::kTorchRank, hvd::env::kTorchWorldSize,
                        hvd::env::kTorchLocalRank, hvd::env::kTorchLocalWorldSize,
                        hvd::env::kTorchGroupRank, hvd::env::kTorchMasterAddr,
                        hvd::env::kTorchMasterPort, hvd::env::kStoreAddr, hvd::env::kStorePort,
                        hvd::env::kRunId, hvd::env::kCpuList, hvd::env::kOmpNumThreads,
                        hvd::env::kCudaVisibleDevices, hvd::env::kFusionThreshold,
                        hvd::env::kCycleTime, hvd::env::kCacheCapacity, hvd::env::kLogLevel,
                        hvd::env::kStallCheckTime, hvd::env::kTimeline, "HVD_TEST_MARKER"};
  std::string line = "{";
  for (const char* k : keys) {
    if (std::getenv(k) == nullptr) continue;
    line += "\"" + std::string(k) + "\":\"" + json_escape(env(k)) + "\",";
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof(set), &set);
  line += "\"affinity\":[";
  for (int c = 0, first = 1; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    line += (first ? "" : ",") + std::to_string(c);
    first = 0;
  }
  line += "],\"pid\":" + std::to_string(getpid()) + "}\n";
  return write(1, line.data(), line.size()) == static_cast<ssize_t>(line.size()) ? 0 : 1;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The "Max open files" soft limit in /proc/PID/limits, or -1.
long soft_nofile(pid_t pid) {
  const std::string limits = read_file("/proc/" + std::to_string(pid) + "/limits");
  const size_t at = limits.find("Max open files");
  if (at == std::string::npos) return -1;
  return std::atol(limits.c_str() + at + std::strlen("Max open files"));
}

int print_secret() {
  const std::string secret = env(hvd::env::kRunSecret);
  const auto in_cmdline = [&secret](pid_t pid) {
    return !secret.empty() &&
           read_file("/proc/" + std::to_string(pid) + "/cmdline").find(secret) != std::string::npos;
  };
  const std::string line = "{\"secret\":\"" + json_escape(secret) + "\",\"in_argv\":" +
                           (in_cmdline(getpid()) ? "true" : "false") + ",\"in_parent_argv\":" +
                           (in_cmdline(getppid()) ? "true" : "false") +
                           ",\"soft_nofile\":" + std::to_string(soft_nofile(getpid())) +
                           ",\"parent_soft_nofile\":" + std::to_string(soft_nofile(getppid())) +
                           "}\n";
  return write(1, line.data(), line.size()) == static_cast<ssize_t>(line.size()) ? 0 : 1;
}

// Writes each line in pieces of random size straight to the file descriptor, so that lines of
// different ranks would tear if hvdrun did not reassemble them.
int flood(int lines, int width) {
  std::mt19937 rng(static_cast<unsigned>(rank()) * 7919u + 1u);
  for (int i = 0; i < lines; ++i) {
    std::string line = "rank=" + std::to_string(rank()) + " seq=" + std::to_string(i) + " ";
    line.append(static_cast<size_t>(std::max(0, width - static_cast<int>(line.size()))),
                static_cast<char>('a' + (i + rank()) % 26));
    line.push_back('\n');
    const int fd = i % 3 == 0 ? 2 : 1;
    size_t pos = 0;
    while (pos < line.size()) {
      const size_t piece = std::min(line.size() - pos, static_cast<size_t>(1 + rng() % 97));
      if (write(fd, line.data() + pos, piece) < 0) return 1;
      pos += piece;
    }
  }
  return 0;
}

std::string trap_dir;
void on_signal(int sig) {
  const std::string path = trap_dir + "/" + sigabbrev_np(sig) + "." + std::to_string(rank());
  const int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0644);
  if (fd >= 0) close(fd);
  if (sig == SIGINT || sig == SIGTERM) _exit(0);
}

int trap(const std::string& dir) {
  trap_dir = dir;
  for (int sig : {SIGUSR1, SIGUSR2, SIGINT, SIGTERM}) signal(sig, on_signal);
  write_pid(dir);
  wait_forever();
}

[[noreturn]] void family(const std::string& dir) {
  const pid_t child = fork();
  if (child == 0) {
    for (int i = 0; i < 600; ++i) sleep(1);
    _exit(0);
  }
  write_file(dir + "/child." + std::to_string(rank()), std::to_string(child));
  write_pid(dir);
  wait_forever();
}

int print_fds() {
  std::string out;
  for (int fd = 3; fd < 1024; ++fd) {
    char target[512] = {};
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
    if (n > 0) out += std::to_string(fd) + " -> " + target + "\n";
  }
  return write(1, out.data(), out.size()) == static_cast<ssize_t>(out.size()) ? 0 : 1;
}

[[noreturn]] void shm_leftover(const std::string& dir) {
  const std::string name = "/dev/shm/hvd-" + env(hvd::env::kRunId) + "-leftover-" +
                           std::to_string(rank());
  const int fd = open(name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) _exit(70);
  close(fd);
  write_file(dir + "/shm." + std::to_string(rank()), name);
  write_pid(dir);
  wait_forever();
}

int long_line(size_t bytes) {
  std::string line(bytes, static_cast<char>('a' + rank() % 26));
  line += "0: forged-by-" + std::to_string(rank()) + "\n";
  for (size_t pos = 0; pos < line.size();) {
    const ssize_t n = write(1, line.data() + pos, line.size() - pos);
    if (n <= 0) return 1;
    pos += static_cast<size_t>(n);
  }
  return 0;
}

[[noreturn]] void yes(const std::string& dir) {
  write_pid(dir);
  const std::string lines(4096, 'y');
  for (;;) {
    if (write(1, lines.data(), lines.size()) < 0) _exit(1);
  }
}

int orphan(const std::string& dir) {
  const pid_t child = fork();
  if (child == 0) {
    for (int i = 0; i < 600; ++i) sleep(1);
    _exit(0);
  }
  write_file(dir + "/child." + std::to_string(rank()), std::to_string(child));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "env") return print_env();
  if (mode == "secret") return print_secret();
  if (mode == "flood" && argc == 4) return flood(std::atoi(argv[2]), std::atoi(argv[3]));
  if ((mode == "fail" || mode == "crash") && argc == 5) {
    write_pid(argv[4]);
    wait_all_up(argv[4]);
    if (rank() == std::atoi(argv[2])) {
      if (mode == "fail") return std::atoi(argv[3]);
      raise(std::atoi(argv[3]));
    }
    wait_forever();
  }
  if (mode == "trap" && argc == 3) return trap(argv[2]);
  if (mode == "stubborn" && argc == 3) {
    signal(SIGTERM, SIG_IGN);
    write_pid(argv[2]);
    wait_forever();
  }
  if (mode == "orphan" && argc == 3) return orphan(argv[2]);
  if (mode == "exit" && argc == 3) return std::atoi(argv[2]);
  if (mode == "family" && argc == 3) family(argv[2]);
  if (mode == "fds" && argc == 2) return print_fds();
  if (mode == "shm-leftover" && argc == 3) shm_leftover(argv[2]);
  if (mode == "yes" && argc == 3) yes(argv[2]);
  if (mode == "long-line" && argc == 3) return long_line(std::strtoul(argv[2], nullptr, 10));
  std::fprintf(stderr, "rank_probe: bad arguments (see the comment at the top of rank_probe.cc)\n");
  return 64;
}
