// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading a rank's native stack as elfutils' eu-stack prints it (`eu-stack -p PID -m -s`,
// run by the rank's libhvd on itself, runtime/src/diag/native_stack.h):
//   PID 3779 - process
//   TID 3779:
//   #0  0x00007fb84d645dd0 pause - /usr/lib/x86_64-linux-gnu/libc.so.6
//       ../sysdeps/unix/sysv/linux/pause.c:29:10
//   #1  0x0000556786231142 next_batch - /home/u/prog
//       /home/u/prog.c:2:39
// The main thread is the one whose TID is the PID.

#include <optional>
#include <string>
#include <vector>

#include "why/stack_frame.h"

namespace hvd::launcher::why {

/// A native frame and the file it was loaded from ("/usr/lib/.../libc.so.6").
struct NativeThreads {
  std::vector<ThreadStack> threads;
  // Per thread, per frame: the module of each frame (same shape as threads[i].frames).
  std::vector<std::vector<std::string>> modules;
};

NativeThreads parse_native_stack(const std::string& text);

/// The innermost frame of thread `index` that is the program's own: not in a system library
/// (/lib, /usr/lib), not libhvd (a libhvd.so module, or hvd:: and std:: functions of a program
/// that links libhvd statically), not a compiler-internal symbol (__...). Falls back to the
/// innermost frame.
std::optional<Frame> native_user_frame(const NativeThreads& stack, size_t index);

}  // namespace hvd::launcher::why
