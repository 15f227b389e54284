// SPDX-License-Identifier: Apache-2.0
#pragma once
// FdWriter: hvdrun's writes to its own stdout or stderr, which must never block supervision.
//
// Why: with `hvdrun -np 1 -- yes | sleep 25`, hvdrun used to block in write(1) once the pipe
// was full; a SIGTERM then stayed pending and the rank was never stopped.
//
// Design: bytes are appended to a buffer and a writer thread writes them with ordinary blocking
// writes. The descriptor's flags are left alone: O_NONBLOCK on an inherited terminal or pipe
// would change it for every process sharing that open file (the shell, tee), and poll(POLLOUT)
// does not promise that a large write will not block. The buffer is bounded by back-pressure,
// not by dropping: the supervisor stops reading the ranks' pipes while full() is true, so ranks
// block in their own writes and nothing is lost while the job runs. Only at the end, when
// drain() runs out of time, is what is left given up, and the caller says how much.
//
// A regular file cannot block for long, so for one (the common `hvdrun ... > log`) the bytes
// are written at once by the caller and no thread is started.

#include <chrono>
#include <cstddef>
#include <memory>
#include <string_view>

namespace hvd::launcher::exec {

/// Blocking write of all of `data`, retrying EINTR and short writes; gives up quietly on a
/// broken destination (a full disk or a closed pipe must not end the job). For regular files and
/// the writer thread, never for a pipe the main loop must not block on.
void write_fully(int fd, std::string_view data);

class FdWriter {
 public:
  /// `fd` is not owned. `limit`: full() from this many buffered bytes on.
  FdWriter(int fd, size_t limit);
  /// Stops the thread; a thread still blocked in write() is left to end with the process.
  ~FdWriter();
  FdWriter(const FdWriter&) = delete;
  FdWriter& operator=(const FdWriter&) = delete;

  /// Queues `data`. Never blocks (beyond a write to a regular file). A broken destination
  /// (EPIPE, a closed terminal) discards what it is given, so the ranks go on.
  void append(std::string_view data);
  /// Whether the caller should stop producing until the writer catches up.
  bool full() const;
  /// Waits until everything queued is written or `limit` passes; returns the bytes left
  /// unwritten (then given up: the thread stops after its current write).
  size_t drain(std::chrono::milliseconds limit);

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with the thread, which may outlive this object
  int fd_;
  size_t limit_;
  bool direct_;  // regular file: written by append() itself
};

}  // namespace hvd::launcher::exec
