// SPDX-License-Identifier: Apache-2.0
#pragma once
// N ranks as threads for the bootstrap tests (after gloo's BaseTest::spawn): runs fn(rank) on
// one thread per rank and returns what each threw, so that a failing rank can never leave
// the others blocked without the test noticing.

#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace hvd::test {

inline std::vector<std::exception_ptr> run_ranks(int size, const std::function<void(int)>& fn) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(size));
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&fn, &errors, r] {
      try {
        fn(r);
      } catch (...) {
        errors[static_cast<size_t>(r)] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return errors;
}

/// The message of a rank's exception, "" when it threw none.
inline std::string what_of(const std::exception_ptr& error) {
  if (!error) return {};
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "(not a std::exception)";
  }
}

}  // namespace hvd::test
