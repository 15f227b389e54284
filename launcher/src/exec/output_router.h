// SPDX-License-Identifier: Apache-2.0
#pragma once
// OutputRouter: turns the ranks' raw output into whole lines, tagged "[RANK]<stdout>:" as
// horovodrun and mpirun --tag-output do. One thread owns it and writes each line with the
// others in a single buffer, so lines from different ranks never tear or interleave mid-line.
// With an output directory it also copies each rank's raw bytes to DIR/rank.N/{stdout,stderr}.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exec/mpirun_tags.h"
#include "net/socket.h"

namespace hvd::launcher::exec {

enum class Stream { kStdout = 0, kStderr = 1 };

class OutputRouter {
 public:
  /// A partial line longer than this is written out as a line of its own, so that a rank that
  /// never prints a newline cannot make hvdrun hold unbounded memory.
  static constexpr size_t kMaxLine = 1 << 20;

  /// Creates DIR/rank.N/ for every rank when `output_dir` is not empty (throws LaunchError if
  /// that fails). `out_fd`/`err_fd` receive the merged lines; they are not owned.
  OutputRouter(int num_ranks, bool tag, const std::string& output_dir, int out_fd, int err_fd);

  /// Bytes read from a rank's pipe.
  void on_data(int rank, Stream stream, std::string_view data);
  /// The pipe closed: a last line without a newline is completed.
  void on_eof(int rank, Stream stream);
  /// Output of `srun --label`: each line starts with its task number ("  3: text"). Lines are
  /// re-tagged as that rank's; lines without a label (srun's own messages) pass untagged.
  void on_labeled_data(Stream stream, std::string_view data);
  void on_labeled_eof(Stream stream);
  /// Labeled output comes from srun --label ("  3: text", the default) or from Open MPI's
  /// mpirun --tag-output ("[1,3]<stdout>:text", see mpirun_tags.h).
  enum class LabelStyle { kSrun, kOpenMpi };
  void set_label_style(LabelStyle style);
  /// Called with each unlabeled line of labeled output (srun's own messages).
  void set_unlabeled_observer(std::function<void(std::string_view)> observer) {
    unlabeled_observer_ = std::move(observer);
  }

  /// Writes what is buffered to out_fd and err_fd. A closed terminal (EPIPE) is ignored so
  /// that the ranks are not killed by hvdrun's own output failing.
  void flush();

  /// The rank.N folder name; N is zero-padded to the width of the largest rank, as horovodrun.
  static std::string rank_dir_name(int rank, int num_ranks);

 private:
  struct Channel {
    std::string prefix;
    std::string partial;  // bytes after the last newline
    net::Fd file;         // DIR/rank.N/stdout or stderr, when asked for
  };
  Channel& channel(int rank, Stream stream);
  void emit(Stream stream, std::string_view prefix, std::string_view line);
  void emit_labeled(Stream stream, std::string_view line);
  void emit_unlabeled(Stream stream, std::string_view line);

  // Splits `data` into lines, appending to `partial`; calls `line` for each whole one.
  template <typename OnLine>
  static void split_lines(std::string& partial, std::string_view data, OnLine line);

  std::vector<Channel> channels_;   // 2 per rank
  std::string labeled_partial_[2];  // srun --label output, per stream
  std::function<void(std::string_view)> unlabeled_observer_;
  std::unique_ptr<MpirunTagSplitter> mpirun_splitters_[2];  // per stream, kOpenMpi only
  std::string pending_[2];                                  // merged output, per destination
  int fds_[2];
};

}  // namespace hvd::launcher::exec
