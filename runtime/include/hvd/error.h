// SPDX-License-Identifier: Apache-2.0
#pragma once
// The error hierarchy shared by the launcher and the runtime (docs/errors.md).
// Expected failures throw an Error subclass whose code picks the launcher's exit code;
// bugs use HVD_CHECK, which throws InternalError with file:line and is never compiled out.

#include <stdexcept>
#include <string>

#include "hvd/str_cat.h"

namespace hvd {

enum class ErrorCode { kUsage, kConfig, kScheduler, kLaunch, kBootstrap, kBackend, kTimeout, kInternal };

/// The code's lower-case name ("usage", "bootstrap", ...), for messages that cross a boundary
/// with the code in words (hvdrun.torch's exceptions start with it). No default case: the
/// compiler's -Wswitch names a code added to the enum without a name here.
constexpr const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage: return "usage";
    case ErrorCode::kConfig: return "config";
    case ErrorCode::kScheduler: return "scheduler";
    case ErrorCode::kLaunch: return "launch";
    case ErrorCode::kBootstrap: return "bootstrap";
    case ErrorCode::kBackend: return "backend";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kInternal: return "internal";
  }
  return "unknown";  // a value cast from an int outside the enum
}

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

/// A command line the launcher cannot make sense of (unknown flag, bad value).
struct UsageError : Error {
  explicit UsageError(const std::string& m) : Error(ErrorCode::kUsage, m) {}
};
/// A configuration file, profile or value that is missing, malformed or inconsistent.
struct ConfigError : Error {
  explicit ConfigError(const std::string& m) : Error(ErrorCode::kConfig, m) {}
};
/// Slurm (or another scheduler) refused or is missing.
struct SchedulerError : Error {
  explicit SchedulerError(const std::string& m) : Error(ErrorCode::kScheduler, m) {}
};
/// Starting the ranks failed (program not found, fork failed, ...).
struct LaunchError : Error {
  explicit LaunchError(const std::string& m) : Error(ErrorCode::kLaunch, m) {}
};
/// Ranks could not find each other.
struct BootstrapError : Error {
  explicit BootstrapError(const std::string& m) : Error(ErrorCode::kBootstrap, m) {}
};
/// A communication library failed.
struct BackendError : Error {
  explicit BackendError(const std::string& m) : Error(ErrorCode::kBackend, m) {}
};
/// Something did not happen in time.
struct TimeoutError : Error {
  explicit TimeoutError(const std::string& m) : Error(ErrorCode::kTimeout, m) {}
};
/// A broken invariant: a bug in hvdrun, never the user's fault.
struct InternalError : Error {
  explicit InternalError(const std::string& m) : Error(ErrorCode::kInternal, m) {}
};

namespace detail {
[[noreturn]] inline void check_failed(const char* file, int line, const char* cond,
                                      const std::string& msg) {
  throw InternalError(str_cat(file, ":", line, ": check failed: ", cond,
                              msg.empty() ? "" : ": ", msg));
}
}  // namespace detail
}  // namespace hvd

#define HVD_CHECK(cond, ...)  /* the message parts are required */                    \
  do {                                                                                    \
    if (!(cond)) ::hvd::detail::check_failed(__FILE__, __LINE__, #cond,                   \
                                             ::hvd::str_cat(__VA_ARGS__)); \
  } while (0)
