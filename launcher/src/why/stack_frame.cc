// SPDX-License-Identifier: Apache-2.0
#include "why/stack_frame.h"

#include <sstream>

namespace hvd::launcher::why {

std::string short_function_name(const std::string& function) {
  // What is inside <...> and (...), at any depth, goes: template arguments and parameters.
  std::string flat;
  int depth = 0;
  for (const char c : function) {
    if (c == '<' || c == '(') {
      ++depth;
    } else if ((c == '>' || c == ')') && depth > 0) {
      --depth;
    } else if (depth == 0) {
      flat += c;
    }
  }
  if (depth != 0) return function;  // unbalanced ("operator<"): not a name we can shorten
  std::vector<std::string> words;
  std::istringstream split(flat);
  for (std::string w; split >> w;) {
    if (w != "const" && w != "volatile" && w != "&" && w != "&&") words.push_back(w);
  }
  // "bool ns::wait" -> "ns::wait"; "void run" -> "run": the name is the last word left.
  return words.empty() ? function : words.back();
}

std::string Frame::label() const {
  const std::string quoted = "`" + short_function_name(function) + "`";
  if (file.empty()) return quoted;
  const size_t slash = file.rfind('/');
  const std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
  return quoted + " (" + base + (line > 0 ? ":" + std::to_string(line) : std::string()) + ")";
}

const ThreadStack* main_thread(const std::vector<ThreadStack>& threads) {
  for (const ThreadStack& t : threads) {
    if (t.main) return &t;
  }
  return threads.empty() ? nullptr : &threads.front();
}

}  // namespace hvd::launcher::why
