// SPDX-License-Identifier: Apache-2.0
#include "why/native_stack.h"

#include <charconv>
#include <sstream>

#include "util/text.h"

namespace hvd::launcher::why {
namespace {

using util::starts_with;

// "#1  0x0000556786231142 next_batch - /tmp/why_sleep"
bool parse_frame_line(const std::string& line, Frame& frame, std::string& module) {
  std::istringstream words(line);
  std::string number, address;
  if (!(words >> number >> address) || number.empty() || number[0] != '#') return false;
  std::string rest;
  std::getline(words, rest);
  const size_t begin = rest.find_first_not_of(' ');
  rest = begin == std::string::npos ? std::string() : rest.substr(begin);
  const size_t dash = rest.rfind(" - ");
  frame.function = dash == std::string::npos ? rest : rest.substr(0, dash);
  module = dash == std::string::npos ? std::string() : rest.substr(dash + 3);
  if (frame.function.empty()) frame.function = "??";
  return true;
}

// "    /tmp/why_sleep.c:2:39" after a frame line: its source file and line.
void parse_source_line(const std::string& line, Frame& frame) {
  const size_t begin = line.find_first_not_of(' ');
  if (begin == std::string::npos) return;
  std::string text = line.substr(begin);
  const size_t last = text.rfind(':');
  if (last == std::string::npos) return;
  size_t colon = last;
  int value = 0;
  const size_t before = text.rfind(':', last - 1);
  // file:line:column, or file:line
  if (before != std::string::npos &&
      std::from_chars(text.data() + before + 1, text.data() + last, value).ec == std::errc()) {
    colon = before;
  } else {
    std::from_chars(text.data() + last + 1, text.data() + text.size(), value);
  }
  frame.file = text.substr(0, colon);
  frame.line = value;
}

bool is_system_module(const std::string& module) {
  if (starts_with(module, "/lib") || starts_with(module, "/usr/lib")) return true;
  const size_t slash = module.rfind('/');
  return module.compare(slash == std::string::npos ? 0 : slash + 1, 6, "libhvd") == 0;
}

// libhvd's own functions (C++ namespace hvd, its C API hvd_*), the C++ library's and the C
// runtime's: where libhvd is linked statically they sit in the program's own module.
bool is_library_function(const std::string& function) {
  const std::string name = short_function_name(function);
  return starts_with(name, "hvd::") || starts_with(name, "hvd_") || starts_with(name, "std::") ||
         starts_with(name, "__") || starts_with(name, "_start") || name == "??";
}

}  // namespace

NativeThreads parse_native_stack(const std::string& text) {
  NativeThreads out;
  std::string pid;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (starts_with(line, "PID ")) {
      pid = line.substr(4, line.find(' ', 4) - 4);
    } else if (starts_with(line, "TID ")) {
      ThreadStack t;
      t.id = line.substr(4, line.find(':') - 4);
      t.main = t.id == pid;
      out.threads.push_back(std::move(t));
      out.modules.emplace_back();
    } else if (!out.threads.empty() && starts_with(line, "#")) {
      Frame f;
      std::string module;
      if (!parse_frame_line(line, f, module)) continue;
      out.threads.back().frames.push_back(std::move(f));
      out.modules.back().push_back(std::move(module));
    } else if (!out.threads.empty() && starts_with(line, "    ") &&
               !out.threads.back().frames.empty()) {
      parse_source_line(line, out.threads.back().frames.back());
    }
  }
  return out;
}

std::optional<Frame> native_user_frame(const NativeThreads& stack, size_t index) {
  if (index >= stack.threads.size() || stack.threads[index].frames.empty()) return std::nullopt;
  const std::vector<Frame>& frames = stack.threads[index].frames;
  for (size_t i = 0; i < frames.size(); ++i) {
    if (!is_system_module(stack.modules[index][i]) && !is_library_function(frames[i].function)) {
      return frames[i];
    }
  }
  return frames.front();
}

}  // namespace hvd::launcher::why
