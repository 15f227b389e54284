// SPDX-License-Identifier: Apache-2.0
// spin_briefly and the per-thread "waits may spin" flag (common/spin_wait.h): a thread that
// may not spin looks once and returns, so that it goes to sleep at once; others poll first.
#include <doctest/doctest.h>

#include <thread>

#include "common/spin_wait.h"

TEST_CASE("spin_briefly: a thread whose waits may not spin looks once, then gives up") {
  std::thread([] {
    hvd::set_waits_may_spin(false);
    CHECK_FALSE(hvd::waits_may_spin());
    int looks = 0;
    CHECK_FALSE(hvd::spin_briefly([&] { return ++looks > 1000; }));
    CHECK(looks == 1);
    // Ready already: true, as on any thread.
    CHECK(hvd::spin_briefly([] { return true; }));
  }).join();
}

TEST_CASE("spin_briefly: other threads poll until ready; the flag is the thread's own") {
  std::thread([] {
    hvd::set_waits_may_spin(false);
    std::thread([] {
      CHECK(hvd::waits_may_spin());  // a new thread starts with its own, default flag
      int looks = 0;
      CHECK(hvd::spin_briefly([&] { return ++looks >= 3; }));
      CHECK(looks == 3);
    }).join();
  }).join();
}

TEST_CASE("allowed_cpu_count: this thread may run on at least one CPU") {
  CHECK(hvd::allowed_cpu_count() >= 1);
}
