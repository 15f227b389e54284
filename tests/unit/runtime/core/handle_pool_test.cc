// SPDX-License-Identifier: Apache-2.0
#include "core/handle_pool.h"

#include <doctest/doctest.h>

#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "core/tensor_queue.h"

namespace core = hvd::core;

TEST_CASE("handle pool: a thread's next handles reuse the blocks of those it dropped") {
  size_t reused = 0;
  bool reset = false;
  std::thread([&] {  // a thread of its own: its pool starts empty
    std::set<const void*> first;
    {
      std::vector<std::shared_ptr<core::HandleState>> step;
      for (int i = 0; i < 300; ++i) step.push_back(core::new_handle());
      for (const auto& h : step) first.insert(h.get());
    }
    std::vector<std::shared_ptr<core::HandleState>> next;
    for (int i = 0; i < 300; ++i) next.push_back(core::new_handle());
    for (const auto& h : next) reused += first.count(h.get());
    // A reused handle starts as a new one.
    reset = !next[0]->done();
    next[0]->complete(hvd::Status());
    reset = reset && next[0]->wait().ok();
  }).join();
  CHECK(reset);
  if (core::handle_pool_enabled()) {
    CHECK(reused == 300);
  } else {
    CHECK(reused <= 300);  // AddressSanitizer: malloc decides
  }
}

TEST_CASE("handle pool: blocks of another size, or freed on another thread, stay usable") {
  void* odd = core::handle_pool_allocate(24);  // not the pool's size: operator new
  core::handle_pool_deallocate(odd, 24);
  std::vector<std::shared_ptr<core::HandleState>> made;
  for (int i = 0; i < 100; ++i) made.push_back(core::new_handle());
  // Dropped on a thread that then exits: its pool frees them.
  std::thread([moved = std::move(made)]() mutable { moved.clear(); }).join();
  std::thread([] {
    std::vector<std::shared_ptr<core::HandleState>> local;
    for (int i = 0; i < 5000; ++i) local.push_back(core::new_handle());  // past the bound
  }).join();
  CHECK(core::new_handle() != nullptr);
}
