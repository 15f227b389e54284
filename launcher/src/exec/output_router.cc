// SPDX-License-Identifier: Apache-2.0
#include "exec/output_router.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "hvd/error.h"

namespace hvd::launcher::exec {
namespace {

net::Fd open_log(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw LaunchError(str_cat("cannot create '", path, "': ", std::strerror(errno)));
  return net::Fd(fd);
}

// Writes everything, or gives up quietly on a broken destination (see flush()).
void write_fully(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data.remove_prefix(static_cast<size_t>(n));
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
    : fds_{out_fd, err_fd} {
  channels_.resize(static_cast<size_t>(num_ranks) * 2);
  for (int rank = 0; rank < num_ranks; ++rank) {
    for (Stream s : {Stream::kStdout, Stream::kStderr}) {
      const char* name = s == Stream::kStdout ? "stdout" : "stderr";
      Channel& c = channel(rank, s);
      if (tag) c.prefix = str_cat("[", rank, "]<", name, ">:");
      if (output_dir.empty()) continue;
      const std::filesystem::path dir =
          std::filesystem::path(output_dir) / rank_dir_name(rank, num_ranks);
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) {
        throw LaunchError(
            str_cat("--output-filename: cannot create '", dir.string(), "': ", ec.message()));
      }
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
        line(std::string_view(partial));
        partial.clear();
      }
      return;
    }
    if (partial.empty()) {
      line(data.substr(0, nl));
    } else {
      partial.append(data.substr(0, nl));
      line(std::string_view(partial));
      partial.clear();
    }
    data.remove_prefix(nl + 1);
  }
}

void OutputRouter::on_data(int rank, Stream stream, std::string_view data) {
  Channel& c = channel(rank, stream);
  if (c.file.valid()) write_fully(c.file.get(), data);
  split_lines(c.partial, data, [&](std::string_view line) { emit(stream, c.prefix, line); });
}

namespace {

// The rank srun's --label names and the text after it ("  3: text"), or rank -1.
std::pair<int, std::string_view> split_srun_label(std::string_view line) {
  const size_t pos = std::min(line.find_first_not_of(' '), line.size());
  size_t end = pos;
  while (end < line.size() && line[end] >= '0' && line[end] <= '9') ++end;
  if (end == pos || end - pos >= 8 || line.substr(end, 2) != ": ") return {-1, line};
  return {std::stoi(std::string(line.substr(pos, end - pos))), line.substr(end + 2)};
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

void OutputRouter::emit_labeled(Stream stream, std::string_view line) {
  const auto [rank, text] = split_srun_label(line);
  if (rank < 0 || static_cast<size_t>(rank) * 2 >= channels_.size()) {
    emit_unlabeled(stream, line);
    return;
  }
  Channel& c = channel(rank, stream);
  if (c.file.valid()) {
    write_fully(c.file.get(), text);
    write_fully(c.file.get(), "\n");
  }
  emit(stream, c.prefix, text);
}

void OutputRouter::on_labeled_data(Stream stream, std::string_view data) {
  if (auto& splitter = mpirun_splitters_[static_cast<int>(stream)]) {
    splitter->feed(data);
    return;
  }
  split_lines(labeled_partial_[static_cast<int>(stream)], data,
              [&](std::string_view line) { emit_labeled(stream, line); });
}

void OutputRouter::on_labeled_eof(Stream stream) {
  if (auto& splitter = mpirun_splitters_[static_cast<int>(stream)]) {
    splitter->finish();
    for (size_t rank = 0; rank < channels_.size() / 2; ++rank)
      on_eof(static_cast<int>(rank), stream);
    return;
  }
  std::string& partial = labeled_partial_[static_cast<int>(stream)];
  if (!partial.empty()) emit_labeled(stream, partial);
  partial.clear();
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
    write_fully(fds_[s], pending_[s]);
    pending_[s].clear();
  }
}

}  // namespace hvd::launcher::exec
