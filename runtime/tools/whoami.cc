// SPDX-License-Identifier: Apache-2.0
// hvd-whoami: the quick-start program, `hvdrun -np 4 -- hvd-whoami`. Every rank reads the
// identity hvdrun gave it, measures the CPUs it may actually run on, and checks in through
// the rendezvous store; rank 0 waits for all of them and prints one table, so a single run
// shows that launch, environment, binding and the store all work.

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "env/env.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "store/kv_client.h"

extern char** environ;

namespace {

using EnvMap = std::map<std::string, std::string>;
using hvd::str_cat;
namespace env = hvd::env;

// The bound on each wait for the other ranks (connecting to the store, gathering the rows):
// HVD_BOOTSTRAP_TIMEOUT in seconds, the variable libhvd's bootstrap reads for the same wait
// and with its range, so one setting bounds both; 30 s when unset, as a quick check should be.
constexpr int64_t kDefaultWaitSeconds = 30;
constexpr int64_t kMaxWaitSeconds = int64_t{7} * 24 * 3600;  // bootstrap_options_from_env's

std::chrono::milliseconds wait_bound(const EnvMap& env) {
  return std::chrono::seconds(
      hvd::env_int64(env, env::kBootstrapTimeout, kDefaultWaitSeconds, 1, kMaxWaitSeconds));
}
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// Printed columns, then fields that only rank 0's consistency check reads.
const std::vector<std::string> kHeader = {"RANK", "LOCAL", "HOST", "PID", "CPUS", "GPU", "OMP"};
enum Field : size_t {
  kRankField,
  kLocalField,
  kHostField,
  kPidField,
  kCpusField,
  kGpuField,
  kOmpField,
  kSizeField,
  kMasterField,
  kFieldCount
};

EnvMap read_environ() {
  EnvMap env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const size_t eq = text.find('=');
    if (eq != std::string::npos) env.emplace(text.substr(0, eq), text.substr(eq + 1));
  }
  return env;
}

// A variable hvdrun always sets: its absence means we were not started by hvdrun.
const std::string& required(const EnvMap& env, const char* name) {
  const auto it = env.find(name);
  if (it == env.end() || it->second.empty()) throw hvd::UsageError(str_cat(name, " is not set"));
  return it->second;
}

std::string optional(const EnvMap& env, const char* name, const std::string& fallback) {
  const auto it = env.find(name);
  return it == env.end() || it->second.empty() ? fallback : it->second;
}

int parse_int(const std::string& text, const char* name) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0) {
    throw hvd::ConfigError(str_cat(name, "='", text, "' is not a non-negative integer"));
  }
  return value;
}

// "0-3,8,10-11" from a sorted list of CPU numbers.
std::string compact_cpu_list(const std::vector<int>& cpus) {
  std::string text;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    text += str_cat(text.empty() ? "" : ",", cpus[i]);
    if (j > i) text += str_cat("-", cpus[j]);
    i = j + 1;
  }
  return text;
}

// CPU numbers, sorted and unique, from a list like "0-3,8" (HVD_CPU_LIST's format).
std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t dash = item.find('-');
    const int first = parse_int(item.substr(0, dash), env::kCpuList);
    const int last =
        dash == std::string::npos ? first : parse_int(item.substr(dash + 1), env::kCpuList);
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

// The CPUs this process may run on, as the kernel sees it (after any binding by hvdrun).
std::vector<int> allowed_cpus() {
  // The mask size must cover the kernel's, which can exceed CPU_SETSIZE: grow until it fits.
  for (int ncpus = 1024; ncpus <= (1 << 20); ncpus *= 2) {
    const std::unique_ptr<cpu_set_t, void (*)(cpu_set_t*)> set(CPU_ALLOC(ncpus),
                                                               [](cpu_set_t* p) { CPU_FREE(p); });
    const size_t bytes = CPU_ALLOC_SIZE(ncpus);
    if (!set) break;
    if (sched_getaffinity(0, bytes, set.get()) != 0) continue;
    std::vector<int> cpus;
    for (int cpu = 0; cpu < ncpus; ++cpu) {
      if (CPU_ISSET_S(static_cast<size_t>(cpu), bytes, set.get())) cpus.push_back(cpu);
    }
    return cpus;
  }
  return {};
}

// The allowed CPUs, and what hvdrun meant to bind to when that differs.
std::string cpus_cell(const EnvMap& env) {
  const std::vector<int> cpus = allowed_cpus();
  std::string cell = cpus.empty() ? "?" : compact_cpu_list(cpus);
  const std::string wanted = optional(env, env::kCpuList, "");
  if (!wanted.empty() && parse_cpu_list(wanted) != cpus) {
    cell += str_cat(" (", env::kCpuList, "=", wanted, ")");
  }
  return cell;
}

std::string host_name(const EnvMap& env) {
  char buf[256] = {};
  const std::string fallback = gethostname(buf, sizeof(buf) - 1) == 0 ? buf : "?";
  return optional(env, env::kHostname, fallback);
}

// This rank's row, after checking that the torch.distributed names agree with Horovod's.
std::vector<std::string> my_row(const EnvMap& env, int rank, int size) {
  const std::string torch_rank = optional(env, env::kTorchRank, std::to_string(rank));
  const std::string torch_size = optional(env, env::kTorchWorldSize, std::to_string(size));
  if (parse_int(torch_rank, env::kTorchRank) != rank ||
      parse_int(torch_size, env::kTorchWorldSize) != size) {
    throw hvd::ConfigError(str_cat(env::kTorchRank, "=", torch_rank, " ", env::kTorchWorldSize, "=",
                                   torch_size, " disagree with ", env::kRank, "=", rank, " ",
                                   env::kSize, "=", size));
  }
  std::vector<std::string> row(kFieldCount);
  row[kRankField] = std::to_string(rank);
  row[kLocalField] = optional(env, env::kLocalRank, "-");
  row[kHostField] = host_name(env);
  row[kPidField] = std::to_string(getpid());
  row[kCpusField] = cpus_cell(env);
  row[kGpuField] = optional(env, env::kCudaVisibleDevices, "none");
  row[kOmpField] = optional(env, env::kOmpNumThreads, "-");
  row[kSizeField] = std::to_string(size);
  row[kMasterField] = str_cat(optional(env, env::kTorchMasterAddr, "-"), ":",
                              optional(env, env::kTorchMasterPort, "-"));
  return row;
}

// Rows travel tab-separated: no field (host name, CPU list, device list) contains a tab.
std::string join_row(const std::vector<std::string>& row) {
  std::string text;
  for (size_t i = 0; i < row.size(); ++i) text += (i == 0 ? "" : "\t") + row[i];
  return text;
}

std::vector<std::string> split_row(const std::string& text, int rank) {
  std::vector<std::string> row;
  std::istringstream in(text);
  for (std::string field; std::getline(in, field, '\t');) row.push_back(field);
  if (row.size() != kFieldCount) {
    throw hvd::BootstrapError(str_cat("rank ", rank, " checked in with a malformed row"));
  }
  return row;
}

// Every rank must agree on the world size and on torch.distributed's rendezvous address.
void check_consistent(const std::vector<std::vector<std::string>>& rows) {
  for (const std::vector<std::string>& row : rows) {
    for (const Field field : {kSizeField, kMasterField}) {
      if (row[field] != rows[0][field]) {
        throw hvd::ConfigError(str_cat("rank ", row[kRankField], " sees ",
                                       field == kSizeField ? "world size " : "MASTER_ADDR:PORT ",
                                       row[field], " but rank 0 sees ", rows[0][field]));
      }
    }
  }
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(kHeader.size());
  for (size_t c = 0; c < kHeader.size(); ++c) {
    width[c] = kHeader[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  const auto print_line = [&width](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < width.size(); ++c) {
      line += cells[c];
      if (c + 1 < width.size()) line += std::string(width[c] - cells[c].size() + 2, ' ');
    }
    std::cout << line << '\n';
  };
  print_line(kHeader);
  for (const auto& row : rows) print_line(row);
}

// Waits for every rank's row, in WAITs of at most kMaxKeys keys under one overall deadline.
void gather_wait(hvd::store::KvClient& store, int size, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r) {
    keys.push_back(str_cat("whoami/", r));
    if (keys.size() == hvd::store::kMaxKeys || r == size - 1) {
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      store.wait(keys, std::max(left, std::chrono::milliseconds(0)));
      keys.clear();
    }
  }
}

int run(const EnvMap& env) {
  const int rank = parse_int(required(env, env::kRank), env::kRank);
  const int size = parse_int(required(env, env::kSize), env::kSize);
  required(env, env::kStoreAddr);
  required(env, env::kStorePort);
  required(env, env::kRunSecret);  // the store serves only ranks that prove it
  if (size < 1 || rank >= size) {
    throw hvd::ConfigError(str_cat(env::kRank, "=", rank, " is outside ", env::kSize, "=", size));
  }
  const std::chrono::milliseconds bound = wait_bound(env);
  hvd::store::KvClient store = hvd::store::connect_from_env(env, bound);
  store.set(str_cat("whoami/", rank), join_row(my_row(env, rank, size)));
  if (rank != 0) return 0;

  gather_wait(store, size, bound);
  std::vector<std::vector<std::string>> rows;
  rows.reserve(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) {
    rows.push_back(split_row(store.get(str_cat("whoami/", r), bound), r));
  }
  check_consistent(rows);
  print_table(rows);
  std::cout << size << (size == 1 ? " rank" : " ranks")
            << " checked in through the rendezvous store at " << store.endpoint() << std::endl;
  return 0;
}

}  // namespace

int main() {
  try {
    return run(read_environ());
  } catch (const hvd::UsageError& e) {
    std::cerr << "hvd-whoami: run me under hvdrun: " << e.what() << std::endl;
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "hvd-whoami: error: " << e.what() << std::endl;
    return kExitFailure;
  }
}
