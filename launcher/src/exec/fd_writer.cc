// SPDX-License-Identifier: Apache-2.0
#include "exec/fd_writer.h"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace hvd::launcher::exec {
namespace {

bool is_regular_file(int fd) {
  struct stat st {};
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

void write_fully(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data.remove_prefix(static_cast<size_t>(n));
  }
}

struct FdWriter::State {
  std::mutex mu;
  std::condition_variable wake;     // the thread waits for data or stop
  std::condition_variable drained;  // drain() waits for the buffer to empty
  std::string queued;               // appended, not yet taken by the thread
  size_t in_flight = 0;             // taken by the thread, not yet written
  bool stop = false;
  bool broken = false;  // the destination failed: discard from now on
};

FdWriter::FdWriter(int fd, size_t limit) : fd_(fd), limit_(limit), direct_(is_regular_file(fd)) {
  if (direct_) return;
  state_ = std::make_shared<State>();
  std::thread([state = state_, fd] {
    std::string chunk;
    std::unique_lock<std::mutex> lock(state->mu);
    for (;;) {
      state->wake.wait(lock, [&] { return state->stop || !state->queued.empty(); });
      if (state->stop) return;
      chunk.swap(state->queued);
      state->in_flight = chunk.size();
      lock.unlock();
      std::string_view left = chunk;
      bool broken = false;
      while (!left.empty()) {
        const ssize_t n = ::write(fd, left.data(), left.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {  // someone else made the file non-blocking
          pollfd p{fd, POLLOUT, 0};
          poll(&p, 1, -1);
          continue;
        }
        if (n <= 0) {
          broken = true;
          break;
        }
        left.remove_prefix(static_cast<size_t>(n));
      }
      chunk.clear();
      lock.lock();
      state->in_flight = 0;
      if (broken) {
        state->broken = true;
        state->queued.clear();
      }
      if (state->queued.empty()) state->drained.notify_all();
    }
  }).detach();
}

FdWriter::~FdWriter() {
  if (!state_) return;
  drain(std::chrono::seconds(2));  // normally done already (OutputRouter::finish)
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->stop = true;
  state_->wake.notify_all();
}

void FdWriter::append(std::string_view data) {
  if (data.empty()) return;
  if (direct_) {
    write_fully(fd_, data);
    return;
  }
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->broken || state_->stop) return;
  state_->queued.append(data);
  state_->wake.notify_one();
}

bool FdWriter::full() const {
  if (direct_) return false;
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->queued.size() + state_->in_flight >= limit_;
}

size_t FdWriter::drain(std::chrono::milliseconds limit) {
  if (direct_) return 0;
  std::unique_lock<std::mutex> lock(state_->mu);
  if (state_->stop) return 0;  // given up before; what was left was counted then
  state_->drained.wait_for(lock, limit, [&] {
    return state_->broken || (state_->queued.empty() && state_->in_flight == 0);
  });
  const size_t left = state_->broken ? 0 : state_->queued.size() + state_->in_flight;
  if (left > 0) {
    state_->stop = true;  // give up: nothing more is written after the current write
    state_->queued.clear();
    state_->wake.notify_all();
  }
  return left;
}

}  // namespace hvd::launcher::exec
