// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading a rank's Python stack as faulthandler dumps it on hvdrun's why signal
// (python/why/hvdrun_stack_dump.py), most recent call first:
//   Current thread 0x00007f3c8e1b2740 (most recent call first):
//     File "/home/u/train.py", line 88 in next_batch
//     File "/home/u/train.py", line 120 in <module>
//
//   Thread 0x00007f3c7d1ff6c0 (most recent call first):
//     File "/usr/lib/python3.11/threading.py", line 324 in wait
// The main thread is the one whose outermost frame is a module's top level (`<module>`): the
// thread that got the signal need not be it.

#include <optional>
#include <string>
#include <vector>

#include "why/stack_frame.h"

namespace hvd::launcher::why {

/// The threads of a faulthandler dump; lines it does not know are skipped.
std::vector<ThreadStack> parse_python_stack(const std::string& text);

/// The innermost frame of `thread` that is the user's code: not the Python library
/// (".../lib/python3...", site-packages, dist-packages, frozen modules) and not hvdrun's own
/// package, so that a rank blocked in queue.get() is named by the function that called it.
/// Falls back to the innermost frame; nothing when the thread has no frames.
std::optional<Frame> python_user_frame(const ThreadStack& thread);

}  // namespace hvd::launcher::why
