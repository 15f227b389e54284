// SPDX-License-Identifier: Apache-2.0
#include "why/collector.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <thread>

#include "files/owned_file.h"
#include "hvd/error.h"
#include "hvd/why_protocol.h"
#include "net/socket.h"
#include "proc/command_output.h"
#include "store/kv_client.h"

namespace hvd::launcher::why {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kPollInterval{50};
constexpr std::chrono::milliseconds kConnectTimeout{2000};

// A number field of /proc/PID/status ("TracerPid:\t123", "PPid:\t1"); -1 when absent.
long status_field(pid_t pid, const std::string& name) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.compare(0, name.size() + 1, name + ":") == 0) {
      try {
        return std::stol(line.substr(name.size() + 1));
      } catch (const std::exception&) {
        return -1;
      }
    }
  }
  return -1;
}

// A rank in tracing stop because its own eu-stack (its child, diag/native_stack.h) reads its
// stack is answering, not stopped: a debugger is not the rank's child.
bool traced_by_own_child(pid_t pid) {
  const long tracer = status_field(pid, "TracerPid");
  return tracer > 0 && status_field(static_cast<pid_t>(tracer), "PPid") == pid;
}

class Round {
 public:
  Round(const std::vector<CollectTarget>& targets, const CollectOptions& o)
      : targets_(targets), options_(o), reports_(targets.size()), done_(targets.size(), false) {
    for (size_t i = 0; i < targets.size(); ++i) {
      reports_[i].rank = targets[i].rank;
      reports_[i].pid = targets[i].pid;
    }
  }

  std::vector<RankReport> run() {
    std::optional<store::KvClient> client = connect();
    guarded(client, [&] {
      for (const CollectTarget& t : targets_) client->del(hvd::why::why_rank_key(t.rank));
    });
    for (const CollectTarget& t : targets_) {
      if (t.pid > 0) kill(t.pid, hvd::why::kWhySignal);
    }
    const Clock::time_point deadline = Clock::now() + options_.timeout;
    std::thread remote;
    if (!options_.remote_argv.empty()) remote = std::thread([this] { ask_remote_nodes(); });
    while (!all_done() && Clock::now() < deadline) {
      guarded(client, [&] { read_answers(*client); });
      note_stopped();
      if (!all_done()) std::this_thread::sleep_for(kPollInterval);
    }
    for (size_t i = 0; i < targets_.size(); ++i) {
      if (done_[i]) continue;
      reports_[i].python_stack = take_python_dump(options_.why_dir, targets_[i].rank);
      locate(reports_[i]);
    }
    if (remote.joinable()) remote.join();
    return std::move(reports_);
  }

 private:
  std::optional<store::KvClient> connect() const {
    if (options_.store_host.empty() || !options_.secret) return std::nullopt;
    try {
      return store::KvClient(options_.store_host, options_.store_port, *options_.secret,
                             kConnectTimeout);
    } catch (const Error&) {
      return std::nullopt;  // the store is gone with the job: /proc still tells something
    }
  }

  // Runs `step` with the store's client; a store that fails is dropped (the job is ending).
  template <typename Step>
  static void guarded(std::optional<store::KvClient>& client, Step step) {
    if (!client) return;
    try {
      step();
    } catch (const Error&) {
      client.reset();
    }
  }

  // Bounded by the round's timeout; what srun and the agents say is only for a broken setup.
  void ask_remote_nodes() const {
    proc::OutputLimits limits;
    limits.timeout = options_.timeout;
    limits.max_bytes = size_t{16} << 10;
    try {
      proc::run_for_output(options_.remote_argv, options_.remote_env, limits);
    } catch (const Error&) {
      // No fork: the verdict has the answers of the ranks reached otherwise.
    }
  }

  bool all_done() const {
    for (bool d : done_) {
      if (!d) return false;
    }
    return true;
  }

  void read_answers(store::KvClient& client) {
    for (size_t i = 0; i < targets_.size(); ++i) {
      if (done_[i]) continue;
      const std::optional<std::string> answer = client.try_get(hvd::why::why_rank_key(targets_[i].rank));
      if (!answer) continue;
      done_[i] = true;
      try {
        reports_[i] = parse_rank_answer(targets_[i].rank, *answer);
      } catch (const Error&) {
        reports_[i].condition = RankCondition::kSilent;  // nonsense from a rank: no state
      }
    }
  }

  void note_stopped() {
    for (size_t i = 0; i < targets_.size(); ++i) {
      if (done_[i] || targets_[i].pid <= 0) continue;
      const RankCondition c = process_condition(targets_[i].pid);
      if (c == RankCondition::kStopped || c == RankCondition::kGone) {
        reports_[i].condition = c;
        done_[i] = true;
      }
    }
  }

  const std::vector<CollectTarget>& targets_;
  const CollectOptions& options_;
  std::vector<RankReport> reports_;
  std::vector<bool> done_;
};

}  // namespace

std::string take_python_dump(const std::string& why_dir, int rank) {
  if (why_dir.empty()) return {};
  const std::string path = why_dir + "/" + hvd::why::kPythonDumpPrefix + std::to_string(rank);
  std::string text;
  try {
    text = files::read_owned_file(path, size_t{256} << 10);
  } catch (const Error&) {
    return {};
  }
  net::Fd fd(open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.valid()) (void)ftruncate(fd.get(), 0);
  return text;
}

RankCondition process_condition(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return RankCondition::kGone;
  // "pid (comm) S ...": the state follows the last ')' (comm may hold anything).
  const size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return RankCondition::kSilent;
  const char state = text[close + 2];
  if (state == 'T') return RankCondition::kStopped;
  if (state == 't') {
    return traced_by_own_child(pid) ? RankCondition::kSilent : RankCondition::kStopped;
  }
  if (state == 'Z' || state == 'X') return RankCondition::kGone;
  return RankCondition::kSilent;
}

std::vector<RankReport> collect(const std::vector<CollectTarget>& targets, const CollectOptions& o) {
  return Round(targets, o).run();
}

}  // namespace hvd::launcher::why
