// SPDX-License-Identifier: Apache-2.0
#include "exec/mpirun_tags.h"

#include <string>

namespace hvd::launcher::exec {
namespace {

constexpr std::string_view kStreams[] = {"stdout>:", "stderr>:", "stddiag>:"};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

MpirunTagSplitter::MpirunTagSplitter(int num_ranks, OnFragment on_fragment,
                                     OnUntaggedLine on_untagged)
    : num_ranks_(num_ranks),
      on_fragment_(std::move(on_fragment)),
      on_untagged_(std::move(on_untagged)) {}

// "[JOB,RANK]<stdout>:" at `pos`: kIncomplete when the buffer ends while all of it still fits.
MpirunTagSplitter::Found MpirunTagSplitter::tag_at(size_t pos) const {
  const std::string_view s(buffer_);
  size_t i = pos;
  // Skips a number of 1..max_digits digits that must be followed by `after`.
  const auto number = [&](size_t max_digits, char after) -> Tag {
    const size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == s.size()) return i - start <= max_digits ? Tag::kIncomplete : Tag::kNo;
    return i > start && i - start <= max_digits && s[i++] == after ? Tag::kYes : Tag::kNo;
  };
  if (i == s.size()) return {Tag::kIncomplete};
  if (s[i++] != '[') return {};
  if (const Tag job = number(10, ','); job != Tag::kYes) return {job};
  const size_t rank_start = i;
  if (const Tag rank = number(7, ']'); rank != Tag::kYes) return {rank};
  const int rank = std::stoi(std::string(s.substr(rank_start, i - 1 - rank_start)));
  if (rank >= num_ranks_) return {};
  if (i == s.size()) return {Tag::kIncomplete};
  if (s[i++] != '<') return {};
  for (std::string_view name : kStreams) {
    const std::string_view have = s.substr(i, name.size());
    if (have == name) return {Tag::kYes, rank, i + name.size() - pos};
    if (have.size() < name.size() && name.substr(0, have.size()) == have) {
      return {Tag::kIncomplete};
    }
  }
  return {};
}

size_t MpirunTagSplitter::fragment_end(size_t pos) const {
  for (size_t i = pos; i < buffer_.size(); ++i) {
    if (buffer_[i] == '\n') return i + 1;
    if (buffer_[i] == '[' && tag_at(i).tag != Tag::kNo) return i;
  }
  return buffer_.size();
}

void MpirunTagSplitter::feed(std::string_view data) {
  buffer_.append(data);
  size_t pos = 0;
  while (pos < buffer_.size()) {
    if (in_fragment_ < 0) {
      const Found t = tag_at(pos);
      if (t.tag == Tag::kIncomplete) break;  // wait for the rest of the tag
      if (t.tag == Tag::kYes) {
        in_fragment_ = t.rank;
        pos += t.length;
        continue;
      }
      const size_t newline = buffer_.find('\n', pos);  // mpirun's own text: whole lines only
      if (newline == std::string::npos) break;
      on_untagged_(std::string_view(buffer_).substr(pos, newline - pos));
      pos = newline + 1;
      continue;
    }
    const size_t end = fragment_end(pos);
    if (end > pos) on_fragment_(in_fragment_, std::string_view(buffer_).substr(pos, end - pos));
    const bool ended_line = end > pos && buffer_[end - 1] == '\n';
    pos = end;
    if (ended_line || (pos < buffer_.size() && tag_at(pos).tag == Tag::kYes)) {
      in_fragment_ = -1;  // over at its newline, or where the next chunk's tag starts
    } else {
      break;  // at the end of the buffer, or a tag cut by the read: the next read tells
    }
  }
  buffer_.erase(0, pos);
}

void MpirunTagSplitter::finish() {
  if (buffer_.empty()) return;
  if (in_fragment_ >= 0) {
    on_fragment_(in_fragment_, buffer_);
  } else {
    on_untagged_(buffer_);
  }
  buffer_.clear();
  in_fragment_ = -1;
}

}  // namespace hvd::launcher::exec
