// SPDX-License-Identifier: Apache-2.0
#pragma once
// Splits the output of Open MPI's `mpirun --tag-output` back into each rank's own bytes.
//
// mpirun prefixes every chunk it reads from a rank, and every line within a chunk, with
// "[JOB,RANK]<stdout>:" (<stderr>, <stddiag>). A chunk need not end with a newline: a rank that
// writes "text" and then "\n" (Python's print when unbuffered) comes out as
// "[1,2]<stdout>:text[1,2]<stdout>:\n", possibly with another rank's chunk in between. So the
// tags are not line prefixes; a tagged fragment runs to its newline or to the next tag, and may
// be split across reads. Untagged text (mpirun's own messages) is passed on line by line.

#include <functional>
#include <string>
#include <string_view>

namespace hvd::launcher::exec {

class MpirunTagSplitter {
 public:
  using OnFragment = std::function<void(int rank, std::string_view bytes)>;
  using OnUntaggedLine = std::function<void(std::string_view line)>;

  /// Tags naming a rank outside 0..num_ranks-1 are not treated as tags.
  MpirunTagSplitter(int num_ranks, OnFragment on_fragment, OnUntaggedLine on_untagged);

  /// Bytes read from mpirun's stdout or stderr (one splitter per stream).
  void feed(std::string_view data);
  /// End of the stream: what is held back (a possible tag cut by the read) is passed on.
  void finish();

 private:
  enum class Tag { kNo, kIncomplete, kYes };
  struct Found {
    Tag tag = Tag::kNo;
    int rank = -1;
    size_t length = 0;
  };
  Found tag_at(size_t pos) const;
  size_t fragment_end(size_t pos) const;  // a newline (included), a tag, or the end of buffer_

  int num_ranks_;
  OnFragment on_fragment_;
  OnUntaggedLine on_untagged_;
  std::string buffer_;    // bytes not yet passed on
  int in_fragment_ = -1;  // the rank whose fragment the next bytes continue; -1 between fragments
};

}  // namespace hvd::launcher::exec
