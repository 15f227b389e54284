// SPDX-License-Identifier: Apache-2.0
#include "exec/supervisor_inbox.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "hvd/error.h"

namespace hvd::launcher::exec {

SupervisorInbox::SupervisorInbox() : event_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!event_.valid()) throw LaunchError(str_cat("eventfd failed: ", std::strerror(errno)));
}

void SupervisorInbox::wake() {
  const uint64_t one = 1;
  (void)!write(event_.get(), &one, sizeof(one));
}

void SupervisorInbox::post_message(std::string text) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.messages.push_back(std::move(text));
  }
  wake();
}

void SupervisorInbox::post_stop(Stop stop) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!items_.stop) items_.stop = std::move(stop);
  }
  wake();
}

SupervisorInbox::Items SupervisorInbox::take() {
  uint64_t count = 0;
  (void)!read(event_.get(), &count, sizeof(count));
  std::lock_guard<std::mutex> lock(mutex_);
  Items out = std::move(items_);
  items_ = Items{};
  return out;
}

}  // namespace hvd::launcher::exec
