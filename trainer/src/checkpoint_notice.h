// SPDX-License-Identifier: Apache-2.0
#pragma once
// How hvd-train learns that a checkpoint is due (a preemption notice, launcher/src/exec/
// requeue.h): SIGUSR1 or SIGUSR2, which hvdrun forwards or Slurm sends every process of the
// step, or the file named by HVD_CHECKPOINT_FILE, which hvdrun creates on that signal. Either
// one, on any rank, makes every rank stop after the same step: ranks agree with a one-int MAX
// allreduce per step, so none waits in a step that the others have left.

#include <cstdint>
#include <string>

namespace hvd::train {

class CheckpointNotice {
 public:
  /// Installs the SIGUSR1/SIGUSR2 handler (so the notice no longer ends the process) and reads
  /// HVD_CHECKPOINT_FILE. Call once, before training, on the main thread.
  CheckpointNotice();

  /// Whether this rank has seen a notice: the signal, or the file. Cheap (a flag, one stat).
  bool seen_here() const;

  /// Collective (every rank, every step): whether any rank has seen a notice.
  bool due_on_any_rank() const;

  /// What told this rank, for the log: "SIGUSR2", "HVD_CHECKPOINT_FILE" or "another rank".
  std::string source() const;

  /// Tests only: waits here until this rank sees a notice (polls every 10 ms).
  void wait_for_notice() const;

 private:
  std::string file_;
};

}  // namespace hvd::train
