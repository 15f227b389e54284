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

// The rank a label names and the text after it, or rank -1. srun right-aligns the task number
// ("  3: text"); mpirun --tag-output writes "[JOB,RANK]<stdout>:text" (or <stderr>).
std::pair<int, std::string_view> split_label(std::string_view line,
                                             OutputRouter::LabelStyle style) {
  size_t pos = 0, end = 0;
  std::string_view after;
  if (style == OutputRouter::LabelStyle::kSrun) {
    pos = std::min(line.find_first_not_of(' '), line.size());
    end = pos;
    while (end < line.size() && line[end] >= '0' && line[end] <= '9') ++end;
    if (line.substr(end, 2) != ": ") return {-1, line};
    after = line.substr(end + 2);
  } else {
    const size_t comma = line.find(',');
    if (line.empty() || line[0] != '[' || comma == std::string_view::npos) return {-1, line};
    pos = end = comma + 1;
    while (end < line.size() && line[end] >= '0' && line[end] <= '9') ++end;
    const size_t colon = line.find(">:", end);
    if (line.substr(end, 2) != "]<" || colon == std::string_view::npos) return {-1, line};
    after = line.substr(colon + 2);
  }
  if (end == pos || end - pos >= 8) return {-1, line};
  return {std::stoi(std::string(line.substr(pos, end - pos))), after};
}

}  // namespace

void OutputRouter::emit_labeled(Stream stream, std::string_view line) {
  const auto [rank, text] = split_label(line, label_style_);
  if (rank < 0 || static_cast<size_t>(rank) * 2 >= channels_.size()) {
    if (unlabeled_observer_) unlabeled_observer_(line);
    emit(stream, "", line);
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
  split_lines(labeled_partial_[static_cast<int>(stream)], data,
              [&](std::string_view line) { emit_labeled(stream, line); });
}

void OutputRouter::on_labeled_eof(Stream stream) {
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
