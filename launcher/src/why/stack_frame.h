// SPDX-License-Identifier: Apache-2.0
#pragma once
// One frame of a rank's stack, as `hvdrun why` names it: "`next_batch` (train.py:88)".

#include <string>
#include <vector>

namespace hvd::launcher::why {

struct Frame {
  std::string function;
  std::string file;  // full path as the stack gave it; may be empty (no debug information)
  int line = 0;      // 0: unknown
  /// "`next_batch` (train.py:88)": the file's last component and the function's short name,
  /// so that a sentence stays short.
  std::string label() const;
};

/// A C++ function as a reader names it: "bool ns::wait<F>(Door&, F const&) const" becomes
/// "ns::wait" (no return type, template arguments or parameters); a C name stays as it is.
std::string short_function_name(const std::string& function);

/// One thread's frames, innermost (the running function) first.
struct ThreadStack {
  std::string id;          // "0x00007f..." (Python) or a TID (native)
  bool main = false;       // the program's main thread
  std::vector<Frame> frames;
};

/// The main thread of `threads`, or the first one; null when there is none.
const ThreadStack* main_thread(const std::vector<ThreadStack>& threads);

}  // namespace hvd::launcher::why
