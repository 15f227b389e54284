// SPDX-License-Identifier: Apache-2.0
#include "exec/status_mirror.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hvd::launcher::exec {

Ending ending_of(int wait_status) {
  if (WIFEXITED(wait_status)) return {WEXITSTATUS(wait_status), 0};
  if (WIFSIGNALED(wait_status)) return {128 + WTERMSIG(wait_status), WTERMSIG(wait_status)};
  if (WIFSTOPPED(wait_status)) return {128 + WSTOPSIG(wait_status), 0};
  return {128 + SIGCONT, 0};
}

void end_as(const Ending& ending) {
  if (ending.signal != 0) {
    // The rank's core file, if it left one, is the one that matters.
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(ending.signal, SIG_DFL);
    sigset_t just_it;
    sigemptyset(&just_it);
    sigaddset(&just_it, ending.signal);
    raise(ending.signal);  // stays pending while blocked: unblocking delivers it
    sigprocmask(SIG_UNBLOCK, &just_it, nullptr);
  }
  _exit(ending.exit_code);
}

}  // namespace hvd::launcher::exec
