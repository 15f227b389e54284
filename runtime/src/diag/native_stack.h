// SPDX-License-Identifier: Apache-2.0
#pragma once
// This process's native stacks, for `hvdrun why` on C and C++ ranks: elfutils' eu-stack run on
// our own pid (it attaches with ptrace, reads every thread's frames with file:line where debug
// information exists, and detaches). Bounded: eu-stack is killed after `timeout`; no shell.

#include <chrono>
#include <string>

namespace hvd::diag {

/// eu-stack's text for this process (at most 128 KiB), or one line saying why there is none
/// ("eu-stack not found on PATH (Debian package elfutils)", "eu-stack took longer than 5 s").
/// `path_env` is the PATH to search. Call from a thread that may block for `timeout`.
std::string native_stack_of_self(const std::string& path_env, std::chrono::milliseconds timeout);

}  // namespace hvd::diag
