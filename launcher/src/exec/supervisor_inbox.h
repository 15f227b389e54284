// SPDX-License-Identifier: Apache-2.0
#pragma once
// SupervisorInbox: how another thread of hvdrun (the verdict's, exec/why_service.h) reaches the
// supervisor's one thread, which alone writes hvdrun's messages (the OutputRouter is
// single-threaded) and stops ranks: posted items wake its poll() through an eventfd.

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "net/socket.h"

namespace hvd::launcher::exec {

class SupervisorInbox {
 public:
  /// A request to end the job as a failure.
  struct Stop {
    int exit_code = 0;
    std::string who;      // for the restart rules and messages: "the job (hung)"
    std::string message;  // said on stderr before the ranks get SIGTERM
  };
  struct Items {
    std::vector<std::string> messages;
    std::optional<Stop> stop;
  };

  /// Throws LaunchError when the eventfd cannot be made.
  SupervisorInbox();
  /// Any thread: `text` is said on stderr, in order with hvdrun's other messages.
  void post_message(std::string text);
  /// Any thread: the job ends with `stop` (the first stop wins).
  void post_stop(Stop stop);
  /// The descriptor the supervisor polls.
  int fd() const { return event_.get(); }
  /// The supervisor's thread: what was posted since the last call.
  Items take();

 private:
  void wake();

  net::Fd event_;
  std::mutex mutex_;
  Items items_;
};

}  // namespace hvd::launcher::exec
