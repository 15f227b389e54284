// SPDX-License-Identifier: Apache-2.0
#include "checkpoint_notice.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/hvd.h"
#include "hvd/str_cat.h"

namespace hvd::train {
namespace {

volatile sig_atomic_t g_notice_signal = 0;

void on_notice_signal(int sig) { g_notice_signal = sig; }

// The notice file sits in a shared folder (/dev/shm): only a regular file of this user counts,
// so that a file or a symlink (to one of this user's files) that another user planted at the
// name is no notice.
bool file_exists(const std::string& path) {
  struct stat st;
  return !path.empty() && ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         st.st_uid == ::geteuid();
}

}  // namespace

CheckpointNotice::CheckpointNotice() {
  if (const char* file = std::getenv(env::kCheckpointFile)) file_ = file;
  struct sigaction sa {};
  sa.sa_handler = on_notice_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, nullptr);
  sigaction(SIGUSR2, &sa, nullptr);
}

bool CheckpointNotice::seen_here() const { return g_notice_signal != 0 || file_exists(file_); }

bool CheckpointNotice::due_on_any_rank() const {
  std::vector<int32_t> flag{seen_here() ? 1 : 0};
  const TensorView view{flag.data(), DataType::kInt32, {1}, Device{}};
  const Status s = allreduce_async("checkpoint.notice", view, view, ReduceOp::kMax).wait();
  if (!s.ok()) {
    throw BackendError(str_cat("hvd-train: rank ", rank(), ": checkpoint.notice: ", s.message()));
  }
  return flag[0] != 0;
}

std::string CheckpointNotice::source() const {
  if (g_notice_signal != 0) return g_notice_signal == SIGUSR1 ? "SIGUSR1" : "SIGUSR2";
  if (file_exists(file_)) return env::kCheckpointFile;
  return "another rank";
}

void CheckpointNotice::wait_for_notice() const {
  while (!seen_here()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace hvd::train
