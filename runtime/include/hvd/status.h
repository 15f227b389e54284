// SPDX-License-Identifier: Apache-2.0
#pragma once
// Status: how an operation ended. The public API returns these instead of throwing.

#include <exception>
#include <string>
#include <utility>

#include "hvd/error.h"

namespace hvd {

class Status {
 public:
  Status() = default;
  static Status error(ErrorCode code, std::string message) {
    return Status(code, std::move(message));
  }
  /// The status for an exception caught at the API boundary.
  static Status from_exception(const std::exception_ptr& e) {
    try {
      std::rethrow_exception(e);
    } catch (const Error& err) {
      return Status(err.code(), err.what());
    } catch (const std::exception& err) {
      return Status(ErrorCode::kInternal, err.what());
    } catch (...) {
      return Status(ErrorCode::kInternal, "unknown error");
    }
  }

  bool ok() const { return ok_; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(ErrorCode code, std::string message)
      : ok_(false), code_(code), message_(std::move(message)) {}
  bool ok_ = true;
  ErrorCode code_ = ErrorCode::kInternal;
  std::string message_;
};

}  // namespace hvd
