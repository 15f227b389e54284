// SPDX-License-Identifier: Apache-2.0
#include "exec/mpirun_tags.h"

#include <doctest/doctest.h>

#include <map>
#include <vector>

using hvd::launcher::exec::MpirunTagSplitter;

namespace {

// What the splitter hands on: each rank's bytes joined, and the untagged lines.
struct Result {
  std::map<int, std::string> ranks;
  std::vector<std::string> untagged;
};

// Feeds `text` in pieces of `piece` bytes (1 = every cut a read could make).
Result split(const std::string& text, size_t piece, int num_ranks = 4) {
  Result r;
  MpirunTagSplitter s(
      num_ranks, [&](int rank, std::string_view b) { r.ranks[rank].append(b); },
      [&](std::string_view line) { r.untagged.emplace_back(line); });
  for (size_t i = 0; i < text.size(); i += piece) s.feed(text.substr(i, piece));
  s.finish();
  return r;
}

}  // namespace

TEST_CASE("mpirun_tags: chunks without newlines, interleaved ranks, mpirun's own lines") {
  // Rank 2 prints "sum 6" and then "\n" in two writes, rank 3's line lands in between, and
  // mpirun adds its own message. Every cut of the input gives the same result.
  const std::string text =
      "[1,2]<stdout>:rank 2 sum 6[1,3]<stdout>:rank 3 [x] ok\n[1,2]<stdout>:\n"
      "----\nmpirun noticed\n[1,0]<stdout>:a\n[1,0]<stdout>:b\n";
  for (size_t piece : {size_t{1}, size_t{2}, size_t{5}, size_t{7}, text.size()}) {
    CAPTURE(piece);
    const Result r = split(text, piece);
    CHECK(r.ranks.at(2) == "rank 2 sum 6\n");
    CHECK(r.ranks.at(3) == "rank 3 [x] ok\n");
    CHECK(r.ranks.at(0) == "a\nb\n");
    CHECK(r.untagged == std::vector<std::string>{"----", "mpirun noticed"});
  }
}

TEST_CASE("mpirun_tags: text that only looks like a tag stays with its rank") {
  const Result r = split("[1,1]<stdout>:see [1,9]<stdout>: and [1,2]<other>:\n", 1, 4);
  CHECK(r.ranks.at(1) == "see [1,9]<stdout>: and [1,2]<other>:\n");  // rank 9 is not in the job
  CHECK(r.untagged.empty());
}

TEST_CASE("mpirun_tags: what is left at the end is passed on") {
  const Result r = split("[1,0]<stdout>:no newline[", 1);
  CHECK(r.ranks.at(0) == "no newline[");
  const Result u = split("mpirun: last words", 3);
  CHECK(u.untagged == std::vector<std::string>{"mpirun: last words"});
}
