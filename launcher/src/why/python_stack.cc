// SPDX-License-Identifier: Apache-2.0
#include "why/python_stack.h"

#include <charconv>
#include <sstream>

#include "util/text.h"

namespace hvd::launcher::why {
namespace {

using util::starts_with;

// '  File "/a/b.py", line 88 in next_batch'
std::optional<Frame> parse_frame(const std::string& line) {
  const size_t open = line.find("File \"");
  if (open == std::string::npos) return std::nullopt;
  const size_t close = line.find("\", line ", open + 6);
  if (close == std::string::npos) return std::nullopt;
  Frame f;
  f.file = line.substr(open + 6, close - open - 6);
  const size_t number = close + 8;
  const size_t in = line.find(" in ", number);
  if (in == std::string::npos) return std::nullopt;
  std::from_chars(line.data() + number, line.data() + in, f.line);
  f.function = line.substr(in + 4);
  return f;
}

bool is_library(const std::string& file) {
  for (const char* marker : {"/lib/python3", "/site-packages/", "/dist-packages/", "/lib/hvdrun/",
                             "/python/hvdrun/", "/python/why/"}) {
    if (file.find(marker) != std::string::npos) return true;
  }
  return starts_with(file, "<");  // <frozen importlib._bootstrap>, <string>
}

}  // namespace

std::vector<ThreadStack> parse_python_stack(const std::string& text) {
  std::vector<ThreadStack> threads;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (starts_with(line, "Current thread ") || starts_with(line, "Thread ")) {
      ThreadStack t;
      const size_t id = line.find("0x");
      t.id = id == std::string::npos ? std::string() : line.substr(id, line.find(' ', id) - id);
      threads.push_back(std::move(t));
    } else if (!threads.empty()) {
      if (std::optional<Frame> f = parse_frame(line)) threads.back().frames.push_back(*f);
    }
  }
  for (ThreadStack& t : threads)
    t.main = !t.frames.empty() && t.frames.back().function == "<module>";
  return threads;
}

std::optional<Frame> python_user_frame(const ThreadStack& thread) {
  if (thread.frames.empty()) return std::nullopt;
  for (const Frame& f : thread.frames) {
    if (!is_library(f.file)) return f;
  }
  return thread.frames.front();
}

}  // namespace hvd::launcher::why
