// SPDX-License-Identifier: Apache-2.0
#pragma once
// spawn(): runs a test body as N ranks on N threads of this process, after gloo's
// BaseTest::spawn. Every thread is joined before spawn() returns; the first exception any
// rank threw (in time) is then rethrown on the calling thread, so a failing REQUIRE or an
// hvd::Error inside a rank fails the test instead of terminating the process.
//
// A rank that throws stops participating; the others must then fail by themselves (their
// transport's deadline), which is exactly what the multi-rank code under test promises.

#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace hvd::test {

/// Calls fn(rank) for every rank in [0, n), each on its own thread.
template <typename Fn>
void spawn(int n, Fn&& fn) {
  std::mutex mutex;
  std::exception_ptr first;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int rank = 0; rank < n; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        fn(rank);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!first) first = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace hvd::test
