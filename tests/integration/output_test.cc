// SPDX-License-Identifier: Apache-2.0
// Tagged output under heavy concurrent output: every line whole, in order, with its rank's tag.

#include <doctest/doctest.h>

#include <map>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;

namespace {

// The line rank_probe's flood mode writes for (rank, seq) at this width.
std::string flood_line(int rank, int seq, int width) {
  std::string line = "rank=" + std::to_string(rank) + " seq=" + std::to_string(seq) + " ";
  line.append(static_cast<size_t>(std::max(0, width - static_cast<int>(line.size()))),
              static_cast<char>('a' + (seq + rank) % 26));
  return line;
}

// Checks one stream of a flood run: each rank's lines complete, whole and in order.
void check_stream(const std::string& text, const std::string& stream, int np, int lines,
                  int width, bool tagged) {
  std::map<int, int> next_seq;  // per rank: the seq expected next on this stream
  auto advance = [&](int rank) {
    int& s = next_seq[rank];
    do ++s; while (s < lines && (s % 3 == 0) != (stream == "stderr"));
  };
  for (int r = 0; r < np; ++r) {
    next_seq[r] = stream == "stderr" ? 0 : 1;
  }
  size_t count = 0;
  for (const std::string& line : split_lines(text)) {
    if (line.rfind("hvdrun:", 0) == 0) continue;  // hvdrun's own messages (none expected)
    TaggedLine t = parse_tag(line);
    if (!tagged) {
      REQUIRE(t.rank == -1);
      t.rank = std::stoi(line.substr(5, line.find(' ') - 5));
    } else {
      REQUIRE_MESSAGE(t.rank >= 0, "untagged line: ", line.substr(0, 80));
      REQUIRE(t.stream == stream);
    }
    REQUIRE(t.rank < np);
    const int seq = next_seq[t.rank];
    REQUIRE_MESSAGE(t.text == flood_line(t.rank, seq, width),
                    "torn or out of order at rank ", t.rank, " seq ", seq, ": ",
                    t.text.substr(0, 80));
    advance(t.rank);
    ++count;
  }
  for (int r = 0; r < np; ++r) CHECK(next_seq[r] >= lines);
  CHECK(count > 0);
}

void flood(int np, int lines, int width, bool tagged) {
  std::vector<std::string> args = {"-np", std::to_string(np)};
  if (!tagged) args.push_back("--no-tag-output");
  args.insert(args.end(), {"--", RANK_PROBE_EXE, "flood", std::to_string(lines),
                           std::to_string(width)});
  const ProcessResult r = run(hvdrun(args));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err.substr(0, 500));
  check_stream(r.out, "stdout", np, lines, width, tagged);
  check_stream(r.err, "stderr", np, lines, width, tagged);
}

}  // namespace

TEST_CASE("8 ranks flooding short lines: no torn or lost lines") { flood(8, 3000, 150, true); }

TEST_CASE("4 ranks flooding lines longer than a pipe buffer") { flood(4, 60, 100000, true); }

TEST_CASE("--no-tag-output still writes whole lines") { flood(4, 1000, 200, false); }

TEST_CASE("--output-filename writes each rank's raw output to DIR/rank.N") {
  TempDir dir;
  const ProcessResult r = run(hvdrun({"-np", "3", "--output-filename", dir.path(), "--",
                                      RANK_PROBE_EXE, "flood", "30", "40"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (int rank = 0; rank < 3; ++rank) {
    std::string want_out, want_err;
    for (int seq = 0; seq < 30; ++seq) {
      (seq % 3 == 0 ? want_err : want_out) += flood_line(rank, seq, 40) + "\n";
    }
    const std::string base = dir.path() + "/rank." + std::to_string(rank);
    CHECK(read_text(base + "/stdout") == want_out);
    CHECK(read_text(base + "/stderr") == want_err);
  }
  CHECK(split_lines(r.out).size() == 3 * 20);  // and still on hvdrun's stdout
}

TEST_CASE("a last line without a newline is delivered whole") {
  const ProcessResult r =
      run(hvdrun({"-np", "2", "--", "/bin/sh", "-c", "printf 'no newline at the end'"}));
  REQUIRE(r.exit_code == 0);
  const auto lines = split_lines(r.out);
  REQUIRE(lines.size() == 2);
  for (const std::string& line : lines) CHECK(parse_tag(line).text == "no newline at the end");
}
