// SPDX-License-Identifier: Apache-2.0
#include "diag/why_responder.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "diag/native_stack.h"
#include "diag/python_dump.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/why_protocol.h"
#include "store/kv_client.h"

namespace hvd::diag {
namespace {

// Process-wide because a signal handler can reach nothing else: the pipe's write end and the
// handler that was installed before ours.
std::atomic<int> g_wake_fd{-1};
struct sigaction g_previous {};

// The store answers within its reply margin; eu-stack reads a few hundred frames.
constexpr std::chrono::milliseconds kStoreTimeout{3000};
constexpr std::chrono::milliseconds kNativeStackTimeout{5000};
constexpr char kStopByte = 's';
constexpr char kSignalByte = 'q';
constexpr char kStallByte = 'w';

bool is_handler(const struct sigaction& a) {
  if ((a.sa_flags & SA_SIGINFO) != 0) return a.sa_sigaction != nullptr;
  return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
}

// Async-signal-safe: the handler before ours first (faulthandler's dump is complete before
// the thread wakes to read it), then one byte down the pipe.
void on_why_signal(int sig, siginfo_t* info, void* context) {
  const int saved = errno;
  if (is_handler(g_previous)) {
    if ((g_previous.sa_flags & SA_SIGINFO) != 0) {
      g_previous.sa_sigaction(sig, info, context);
    } else {
      g_previous.sa_handler(sig);
    }
  }
  const int fd = g_wake_fd.load();
  if (fd >= 0) (void)!write(fd, &kSignalByte, 1);
  errno = saved;
}

void wake(int fd, char byte) { (void)!write(fd, &byte, 1); }

}  // namespace

WhyResponder::WhyResponder(int rank, EnvMap env, Snapshot snapshot)
    : rank_(rank), env_(std::move(env)), snapshot_(std::move(snapshot)) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw BootstrapError(str_cat("why responder: pipe failed: ", std::strerror(errno)));
  }
  wake_read_ = net::Fd(fds[0]);
  wake_write_ = net::Fd(fds[1]);
  int expected = -1;
  HVD_CHECK(g_wake_fd.compare_exchange_strong(expected, wake_write_.get()),
            "a second why responder in one process");
  struct sigaction action {};
  action.sa_sigaction = on_why_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(why::kWhySignal, &action, &g_previous);
  thread_ = std::thread([this] { run(); });
}

WhyResponder::~WhyResponder() { stop(); }

void WhyResponder::stop() {
  if (!thread_.joinable()) return;
  sigaction(why::kWhySignal, &g_previous, nullptr);
  g_wake_fd.store(-1);
  stopping_ = true;
  wake(wake_write_.get(), kStopByte);
  thread_.join();
}

void WhyResponder::publish_stall(std::string json) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stall_json_ = std::move(json);
  }
  wake(wake_write_.get(), kStallByte);
}

void WhyResponder::run() {
  while (!stopping_) {
    pollfd p{wake_read_.get(), POLLIN, 0};
    // Bounded, although stop() always writes: a lost byte costs a second, not a hang.
    if (poll(&p, 1, 1000) <= 0) continue;
    char bytes[64];
    const ssize_t n = read(wake_read_.get(), bytes, sizeof(bytes));
    bool asked = false, stalled = false;
    for (ssize_t i = 0; i < n; ++i) {
      asked = asked || bytes[i] == kSignalByte;
      stalled = stalled || bytes[i] == kStallByte;
    }
    if (stopping_) return;
    // A failure to answer must not end the rank: hvdrun reports the rank as silent instead.
    try {
      if (stalled) {
        std::string json;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          json.swap(stall_json_);
        }
        if (!json.empty()) send(why::kWhyStallKey, json);
      }
      if (asked) answer();
    } catch (const std::exception& e) {
      std::cerr << "hvd: rank " << rank_ << " could not answer hvdrun why: " << e.what()
                << std::endl;
    }
  }
}

std::string WhyResponder::answer_json() {
  nlohmann::json out{{"rank", rank_}, {"pid", static_cast<int64_t>(getpid())}};
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) out["host"] = host;
  out["libhvd"] = nlohmann::json::parse(to_json(snapshot_()));
  const std::string python = take_python_dump(env_string(env_, env::kWhyDir, ""), rank_);
  if (!python.empty()) {
    out["python_stack"] = python;
  } else {
    out["native_stack"] = native_stack_of_self(env_string(env_, "PATH", ""), kNativeStackTimeout);
  }
  // Text from a stack may hold bytes that are not UTF-8 (a file name): replaced, not thrown.
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void WhyResponder::answer() { send(why::why_rank_key(rank_), answer_json()); }

void WhyResponder::send(const std::string& key, const std::string& value) {
  store::KvClient client = store::connect_from_env(env_, kStoreTimeout);
  client.set(key, value);
}

std::shared_ptr<WhyResponder> make_why_responder(int rank, const EnvMap& env,
                                                 WhyResponder::Snapshot snapshot) {
  if (env_string(env, env::kStoreAddr, "").empty()) return nullptr;
  // One per process (the signal's wake-up is process-wide): a second libhvd instance in the
  // same process (tests run ranks as threads) goes without.
  if (g_wake_fd.load() >= 0) return nullptr;
  return std::make_shared<WhyResponder>(rank, env, std::move(snapshot));
}

WhyResponderScope& WhyResponderScope::operator=(WhyResponderScope&& other) noexcept {
  if (responder_) responder_->stop();
  responder_ = std::move(other.responder_);
  return *this;
}

WhyResponderScope::~WhyResponderScope() {
  if (responder_) responder_->stop();
}

}  // namespace hvd::diag
