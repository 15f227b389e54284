// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shorthands shared by the integration tests.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/subprocess.h"

namespace hvd::test {

inline std::vector<std::string> hvdrun(std::vector<std::string> args) {
  args.insert(args.begin(), HVDRUN_EXE);
  return args;
}

/// "[3]<stdout>:text" -> {3, "text"}; rank -1 when the line has no tag.
struct TaggedLine {
  int rank = -1;
  std::string stream;
  std::string text;
};

inline TaggedLine parse_tag(const std::string& line) {
  TaggedLine t;
  const auto close = line.find(']');
  const auto colon = line.find(">:");
  if (line.empty() || line[0] != '[' || close == std::string::npos || colon == std::string::npos) {
    t.text = line;
    return t;
  }
  t.rank = std::stoi(line.substr(1, close - 1));
  t.stream = line.substr(close + 2, colon - close - 2);
  t.text = line.substr(colon + 2);
  return t;
}

/// The one line hvdrun prints for a bad input.
inline std::string only_line(const std::string& text) {
  const std::vector<std::string> lines = split_lines(text);
  return lines.size() == 1 ? lines[0] : "<" + std::to_string(lines.size()) + " lines>: " + text;
}

}  // namespace hvd::test
