// SPDX-License-Identifier: Apache-2.0
// spin_briefly and the per-thread "waits may spin" flag (common/spin_wait.h): a thread that
// may not spin, or that runs on one CPU, looks once and returns, so that it goes to sleep at
// once; others poll first.
#include <doctest/doctest.h>
#include <pthread.h>
#include <sched.h>

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

namespace {

// Confines the calling thread to `cpus` CPUs of those it may run on; false if it has fewer.
bool confine_to(int cpus) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return false;
  cpu_set_t chosen;
  CPU_ZERO(&chosen);
  int taken = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && taken < cpus; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) {
      CPU_SET(cpu, &chosen);
      ++taken;
    }
  }
  return taken == cpus && pthread_setaffinity_np(pthread_self(), sizeof(chosen), &chosen) == 0;
}

}  // namespace

TEST_CASE("spin_briefly: other threads poll until ready; the flag is the thread's own") {
  if (hvd::allowed_cpu_count() < 2) {
    MESSAGE("this test process runs on one CPU, where no thread polls; skipped");
    return;
  }
  std::thread([] {
    hvd::set_waits_may_spin(false);
    std::thread([] {
      CHECK(hvd::waits_may_spin());  // a new thread starts with its own, default flag
      // A second look, whatever the load: the first is before the clock is read, and the
      // loop looks once more before it compares the clock (a third would need the thread to
      // run on within the 50 us, which a loaded machine does not promise).
      int looks = 0;
      CHECK(hvd::spin_briefly([&] { return ++looks >= 2; }));
      CHECK(looks == 2);
    }).join();
  }).join();
}

TEST_CASE("allowed_cpu_count: this thread may run on at least one CPU") {
  CHECK(hvd::allowed_cpu_count() >= 1);
}

TEST_CASE("spin_briefly: a thread that runs on one CPU looks once, one on two polls") {
  std::thread([] {
    REQUIRE(confine_to(1));
    CHECK(hvd::on_one_cpu());
    CHECK(hvd::waits_may_spin());  // the flag is not what stops it
    int looks = 0;
    CHECK_FALSE(hvd::spin_briefly([&] { return ++looks > 1000; }));
    CHECK(looks == 1);
  }).join();
  if (hvd::allowed_cpu_count() < 2) return;
  std::thread([] {
    REQUIRE(confine_to(2));
    CHECK_FALSE(hvd::on_one_cpu());
    int looks = 0;
    CHECK(hvd::spin_briefly([&] { return ++looks >= 2; }));  // a second look (see above)
    CHECK(looks == 2);
  }).join();
}
