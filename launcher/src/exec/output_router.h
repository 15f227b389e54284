// SPDX-License-Identifier: Apache-2.0
#pragma once
// OutputRouter: turns the ranks' raw output into whole lines, tagged "[RANK]<stdout>:" as
// horovodrun and mpirun --tag-output do. One thread owns it and writes each line with the
// others in a single buffer, so lines from different ranks never tear or interleave mid-line.
// With an output directory it also copies each rank's raw bytes to DIR/rank.N/{stdout,stderr}.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exec/fd_writer.h"
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

  /// Called with the rank of each piece of output attributed to a rank, any bytes, whole lines
  /// or not: how --idle-timeout (exec/idle_watch.h) sees that a rank is still alive.
  void set_rank_output_observer(std::function<void(int rank)> observer) {
    rank_output_observer_ = std::move(observer);
  }

  /// Hands what is buffered to the writers of out_fd and err_fd (fd_writer.h); never blocks on
  /// a destination that does not read. A closed terminal (EPIPE) is ignored so that the ranks
  /// are not killed by hvdrun's own output failing.
  void flush();
  /// One line of hvdrun's own for stderr ("hvdrun: " is added), in order with the ranks' lines.
  void message(std::string_view text);
  /// Between two attempts of a restarted job (--max-restarts): `text` goes to stderr as
  /// message() does, and into every rank's log file (on a line of its own), which then goes on
  /// with the next attempt's output, so each rank keeps one stream with the attempts marked.
  void mark_restart(std::string_view text);
  /// Whether a destination holds kMaxBacklog bytes not yet written: stop reading the ranks.
  bool backlogged() const;
  /// At the end: waits up to `limit` for everything to be written. If stdout or stderr did not
  /// take it all, says on stderr how many bytes were dropped. Returns that number.
  size_t finish(std::chrono::milliseconds limit);
  /// Bytes a destination may hold before backlogged() (then the ranks are blocked, not dropped).
  static constexpr size_t kMaxBacklog = size_t{4} << 20;

  /// The rank.N folder name; N is zero-padded to the width of the largest rank, as horovodrun.
  static std::string rank_dir_name(int rank, int num_ranks);

 private:
  struct Channel {
    std::string prefix;
    std::string partial;  // bytes after the last newline
    net::Fd file;         // DIR/rank.N/stdout or stderr, when asked for
    bool file_mid_line = false;  // the file's last byte is not a newline
  };
  Channel& channel(int rank, Stream stream);
  void emit(Stream stream, std::string_view prefix, std::string_view line);
  // Returns the rank the line was attributed to, or -1 for an unlabeled line.
  int emit_labeled(Stream stream, std::string_view line, bool complete);
  void emit_as_rank(int rank, Stream stream, std::string_view text, bool complete);
  void emit_unlabeled(Stream stream, std::string_view line);
  void labeled_line(Stream stream, std::string_view line, bool complete);

  // Splits `data` into lines, appending to `partial`; calls `line(text, complete)` for each
  // whole one, and with complete = false for a piece cut at kMaxLine.
  template <typename OnLine>
  static void split_lines(std::string& partial, std::string_view data, OnLine line);

  std::vector<Channel> channels_;   // 2 per rank
  struct LabeledStream {  // srun --label output, per stream
    std::string partial;
    bool continuing = false;  // the last line was cut at kMaxLine: more of it follows
    int rank = -1;            // whose line that was (-1: srun's own)
  };
  LabeledStream labeled_[2];
  std::function<void(std::string_view)> unlabeled_observer_;
  std::function<void(int)> rank_output_observer_;
  std::unique_ptr<MpirunTagSplitter> mpirun_splitters_[2];  // per stream, kOpenMpi only
  std::string pending_[2];                                  // merged output, per destination
  std::unique_ptr<FdWriter> writers_[2];
};

}  // namespace hvd::launcher::exec
