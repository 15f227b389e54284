// SPDX-License-Identifier: Apache-2.0
#pragma once
// SrunReport: reads srun's own messages to learn which task failed first and how.
//
// srun exits with the highest exit code of its tasks, so when one rank exits 3 and
// --kill-on-bad-exit then terminates the others, srun exits 143. What the user needs is the
// first failure, which srun prints as it happens:
//   srun: error: node1: task 5: Exited with exit code 3
//   srun: error: node2: tasks 0-4,6: Terminated
//   srun: error: nid001: task 2: Segmentation fault (core dumped)

#include <optional>
#include <string>
#include <string_view>

namespace hvd::launcher::exec {

struct TaskFailure {
  std::string node;
  std::string tasks;    // as srun wrote them: "5" or "0-4,6"
  int exit_code = 0;    // the task's code, or 128+signal
  std::string how;      // "exited with code 3", "was killed by SIGSEGV (Segmentation fault)"
};

class SrunReport {
 public:
  /// One line srun printed itself (not a task's output).
  void observe(std::string_view line);
  const std::optional<TaskFailure>& first_failure() const { return first_; }

  /// Parses one such line; nullopt for anything else.
  static std::optional<TaskFailure> parse(std::string_view line);

 private:
  std::optional<TaskFailure> first_;
};

}  // namespace hvd::launcher::exec
