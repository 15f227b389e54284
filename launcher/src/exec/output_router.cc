// SPDX-License-Identifier: Apache-2.0
#include "exec/output_router.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "files/atomic_file.h"
#include "hvd/error.h"

namespace hvd::launcher::exec {
namespace {

// Created under a fresh mkstemp name and renamed into place at once (files/atomic_file.h), so a
// symlink another user planted at the log's name is replaced, never written through; the log
// then grows in place while the rank runs.
net::Fd open_log(const std::string& path) {
  try {
    files::AtomicFile file(path);
    file.commit();
    const int fd = ::fcntl(file.fd(), F_DUPFD_CLOEXEC, 0);
    if (fd < 0) throw LaunchError(str_cat("cannot create '", path, "': ", std::strerror(errno)));
    return net::Fd(fd);
  } catch (const ConfigError& e) {
    throw LaunchError(str_cat("cannot create the rank log: ", e.what()));
  }
}

void make_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw LaunchError(
        str_cat("--output-filename: cannot create '", dir.string(), "': ", ec.message()));
  }
}

// DIR and DIR/rank.N must be real folders of this user. rank.N has a name anyone can predict,
// and DIR is often shared (/tmp, a project folder): a folder or symlink another user made there
// first would get the rank's output, readable and replaceable by them. And in a DIR of another
// user's, its owner can swap rank.N for a forged one after the run, whatever we checked.
// DIR itself may be reached through a symlink of the user's (~/scratch -> /lustre/...): only
// where it ends counts. rank.N may not be one.
void check_own_folder(const std::filesystem::path& dir, bool follow_link) {
  struct stat st {};
  if ((follow_link ? ::stat(dir.c_str(), &st) : ::lstat(dir.c_str(), &st)) != 0) {
    throw LaunchError(
        str_cat("--output-filename: cannot use '", dir.string(), "': ", std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode)) {
    throw LaunchError(str_cat("--output-filename: '", dir.string(),
                              "' is not a folder of this user but a symlink, which whoever made it "
                              "can re-aim; choose another folder"));
  }
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
    throw LaunchError(str_cat("--output-filename: '", dir.string(), "' is not a folder of this ",
                              "user (owner uid ", st.st_uid, "): its owner could read or replace ",
                              "the ranks' logs; choose a folder of your own"));
  }
}

}  // namespace

std::string OutputRouter::rank_dir_name(int rank, int num_ranks) {
  const size_t width = std::to_string(std::max(0, num_ranks - 1)).size();
  std::string number = std::to_string(rank);
  if (number.size() < width) number.insert(0, width - number.size(), '0');
  return "rank." + number;
}

OutputRouter::OutputRouter(int num_ranks, bool tag, const std::string& output_dir, int out_fd,
                           int err_fd)
    : writers_{std::make_unique<FdWriter>(out_fd, kMaxBacklog),
               std::make_unique<FdWriter>(err_fd, kMaxBacklog)} {
  channels_.resize(static_cast<size_t>(num_ranks) * 2);
  if (!output_dir.empty()) {  // before anything is made inside it
    make_folder(output_dir);
    check_own_folder(output_dir, true);
  }
  for (int rank = 0; rank < num_ranks; ++rank) {
    for (Stream s : {Stream::kStdout, Stream::kStderr}) {
      const char* name = s == Stream::kStdout ? "stdout" : "stderr";
      Channel& c = channel(rank, s);
      if (tag) c.prefix = str_cat("[", rank, "]<", name, ">:");
      if (output_dir.empty()) continue;
      const std::filesystem::path dir =
          std::filesystem::path(output_dir) / rank_dir_name(rank, num_ranks);
      make_folder(dir);
      check_own_folder(dir, false);
      c.file = open_log((dir / name).string());
    }
  }
}

OutputRouter::Channel& OutputRouter::channel(int rank, Stream stream) {
  return channels_.at(static_cast<size_t>(rank) * 2 + static_cast<size_t>(stream));
}

void OutputRouter::emit(Stream stream, std::string_view prefix, std::string_view line) {
  std::string& out = pending_[static_cast<int>(stream)];
  out.append(prefix);
  out.append(line);
  out.push_back('\n');
}

template <typename OnLine>
void OutputRouter::split_lines(std::string& partial, std::string_view data, OnLine line) {
  while (!data.empty()) {
    const size_t nl = data.find('\n');
    if (nl == std::string_view::npos) {
      partial.append(data);
      if (partial.size() >= kMaxLine) {
        line(std::string_view(partial), false);
        partial.clear();
      }
      return;
    }
    if (partial.empty()) {
      line(data.substr(0, nl), true);
    } else {
      partial.append(data.substr(0, nl));
      line(std::string_view(partial), true);
      partial.clear();
    }
    data.remove_prefix(nl + 1);
  }
}

void OutputRouter::on_data(int rank, Stream stream, std::string_view data) {
  Channel& c = channel(rank, stream);
  if (rank_output_observer_ && !data.empty()) rank_output_observer_(rank);
  if (c.file.valid() && !data.empty()) {
    write_fully(c.file.get(), data);
    c.file_mid_line = data.back() != '\n';
  }
  split_lines(c.partial, data, [&](std::string_view line, bool) { emit(stream, c.prefix, line); });
}

namespace {

// The rank srun's --label names and the text after it ("  3: text"), or rank -1.
std::pair<int, std::string_view> split_srun_label(std::string_view line) {
  const size_t pos = std::min(line.find_first_not_of(' '), line.size());
  size_t end = pos;
  while (end < line.size() && line[end] >= '0' && line[end] <= '9') ++end;
  if (end == pos || end - pos >= 8 || line.substr(end, 2) != ": ") return {-1, line};
  int rank = -1;
  std::from_chars(line.data() + pos, line.data() + end, rank);  // at most 7 digits: no overflow
  return {rank, line.substr(end + 2)};
}

}  // namespace

void OutputRouter::set_label_style(LabelStyle style) {
  for (int s = 0; s < 2; ++s) {
    const Stream stream = static_cast<Stream>(s);
    mpirun_splitters_[s].reset();
    if (style != LabelStyle::kOpenMpi) continue;
    mpirun_splitters_[s] = std::make_unique<MpirunTagSplitter>(
        static_cast<int>(channels_.size() / 2),
        [this, stream](int rank, std::string_view bytes) { on_data(rank, stream, bytes); },
        [this, stream](std::string_view line) { emit_unlabeled(stream, line); });
  }
}

void OutputRouter::emit_unlabeled(Stream stream, std::string_view line) {
  if (unlabeled_observer_) unlabeled_observer_(line);
  emit(stream, "", line);
}

int OutputRouter::emit_labeled(Stream stream, std::string_view line, bool complete) {
  const auto [rank, text] = split_srun_label(line);
  if (rank < 0 || static_cast<size_t>(rank) * 2 >= channels_.size()) {
    emit_unlabeled(stream, line);
    return -1;
  }
  emit_as_rank(rank, stream, text, complete);
  return rank;
}

void OutputRouter::emit_as_rank(int rank, Stream stream, std::string_view text, bool complete) {
  Channel& c = channel(rank, stream);
  if (rank_output_observer_) rank_output_observer_(rank);
  if (c.file.valid()) {
    write_fully(c.file.get(), text);
    if (complete) write_fully(c.file.get(), "\n");
    c.file_mid_line = !complete;
  }
  emit(stream, c.prefix, text);
}

void OutputRouter::on_labeled_data(Stream stream, std::string_view data) {
  if (auto& splitter = mpirun_splitters_[static_cast<int>(stream)]) {
    splitter->feed(data);
    return;
  }
  LabeledStream& ls = labeled_[static_cast<int>(stream)];
  split_lines(ls.partial, data,
              [&](std::string_view line, bool complete) { labeled_line(stream, line, complete); });
}

// srun (22.05 measured: tests/slurm/t0140-srun-long-line.sh) labels every 1 KiB piece of a long
// line itself, so a labelled line never reaches kMaxLine. Should one do so anyway (another srun,
// a line with no newline), hvdrun cuts it: the rest up to the next newline is still the same
// rank's output (or srun's), so it is passed on as that, never read for a label or as an srun
// message. Otherwise a rank could print another rank's label, or a fake "srun: error:" line,
// after 1 MiB of padding.
void OutputRouter::labeled_line(Stream stream, std::string_view line, bool complete) {
  LabeledStream& ls = labeled_[static_cast<int>(stream)];
  if (!ls.continuing) {
    ls.rank = emit_labeled(stream, line, complete);
  } else if (ls.rank >= 0) {
    emit_as_rank(ls.rank, stream, line, complete);
  } else {
    emit(stream, "", line);
  }
  ls.continuing = !complete;
}

void OutputRouter::on_labeled_eof(Stream stream) {
  if (auto& splitter = mpirun_splitters_[static_cast<int>(stream)]) {
    splitter->finish();
    for (size_t rank = 0; rank < channels_.size() / 2; ++rank)
      on_eof(static_cast<int>(rank), stream);
    return;
  }
  LabeledStream& ls = labeled_[static_cast<int>(stream)];
  if (!ls.partial.empty()) labeled_line(stream, std::string(std::move(ls.partial)), true);
  ls.partial.clear();
  ls.continuing = false;
}

void OutputRouter::on_eof(int rank, Stream stream) {
  Channel& c = channel(rank, stream);
  if (!c.partial.empty()) {
    emit(stream, c.prefix, c.partial);
    c.partial.clear();
  }
}

void OutputRouter::flush() {
  for (int s = 0; s < 2; ++s) {
    writers_[s]->append(pending_[s]);
    pending_[s].clear();
  }
}

void OutputRouter::message(std::string_view text) {
  std::string& err = pending_[static_cast<int>(Stream::kStderr)];
  err.append("hvdrun: ");
  err.append(text);
  err.push_back('\n');
  flush();
}

void OutputRouter::mark_restart(std::string_view text) {
  for (Channel& c : channels_) {
    if (!c.file.valid()) continue;
    write_fully(c.file.get(), str_cat(c.file_mid_line ? "\n" : "", "hvdrun: ", text, "\n"));
    c.file_mid_line = false;
  }
  message(text);
}

bool OutputRouter::backlogged() const { return writers_[0]->full() || writers_[1]->full(); }

size_t OutputRouter::finish(std::chrono::milliseconds limit) {
  flush();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  const auto left = [&] {
    return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now()),
                    std::chrono::milliseconds(0));
  };
  const size_t dropped_out = writers_[0]->drain(left());
  if (dropped_out > 0) {
    message(str_cat("warning: ", dropped_out, " bytes of output dropped: stdout took nothing for ",
                    limit.count(), " ms after the job ended"));
  }
  const size_t dropped_err = writers_[1]->drain(std::max(left(), std::chrono::milliseconds(100)));
  return dropped_out + dropped_err;
}

}  // namespace hvd::launcher::exec
