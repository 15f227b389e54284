// SPDX-License-Identifier: Apache-2.0
#pragma once
// What every fuzz target shares: bad input must end in an hvd::Error (the parsers' documented
// way to refuse it, house style 2.3); anything else is a finding. libFuzzer reports a crash,
// a sanitizer report, a leak, a timeout or an allocation over -malloc_limit_mb by itself; an
// InternalError (a failed HVD_CHECK: a bug, never the input's fault) or any other exception is
// turned into an abort here, with its message, so that libFuzzer saves the input.

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "hvd/error.h"

namespace hvd::fuzz {

[[noreturn]] inline void finding(const char* kind, const char* what) {
  std::fprintf(stderr, "hvd-fuzz: finding: %s: %s\n", kind, what);
  std::abort();
}

/// Runs `parse()`; an hvd::Error other than InternalError is a fine outcome.
template <typename Parse>
int expect_only_hvd_errors(Parse&& parse) {
  try {
    parse();
  } catch (const hvd::InternalError& e) {
    finding("InternalError (a failed HVD_CHECK)", e.what());
  } catch (const hvd::Error&) {
    // The input was refused the documented way.
  } catch (const std::exception& e) {
    finding("an exception that is no hvd::Error", e.what());
  } catch (...) {
    finding("an exception that is no std::exception", "?");
  }
  return 0;
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A path whose content is exactly the input, for parsers that only take a path: one memfd,
/// rewritten for each input, named through /proc/self/fd (no disk, no temp file left over).
inline std::string as_file(const uint8_t* data, size_t size) {
  static const int fd = ::memfd_create("hvd-fuzz-input", MFD_CLOEXEC);
  if (fd < 0) finding("setup", "memfd_create failed");
  if (::ftruncate(fd, 0) != 0) finding("setup", "ftruncate failed");
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) finding("setup", "pwrite failed");
    done += static_cast<size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace hvd::fuzz
