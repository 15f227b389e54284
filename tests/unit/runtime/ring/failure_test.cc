// SPDX-License-Identifier: Apache-2.0
// Collectives with a rank that stops participating: the others must throw an hvd::Error
// (BackendError when the peer is known to be gone, TimeoutError when it is merely silent)
// instead of hanging. Nothing is asserted about how long it took.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends/ring/collectives.h"
#include "hvd/error.h"
#include "unit/runtime/ring/ring_world.h"

using hvd::BufferView;
using hvd::DataType;
using hvd::ReduceOp;
using hvd::test::TransportKind;
using std::chrono::milliseconds;
namespace test = hvd::test;
namespace ring = hvd::backends::ring;

namespace {

enum class Absence { kLeaves, kStalls };

// Runs `collective` on ranks 0..n-2 while rank n-1 leaves or stalls; returns what each of
// the others saw ("ok" or the hvd::ErrorCode of what it threw).
template <typename Collective>
std::vector<std::string> with_absent_rank(TransportKind kind, int n, Absence absence,
                                          Collective collective) {
  std::mutex mutex;
  std::vector<std::string> outcome(static_cast<size_t>(n - 1), "none");
  std::atomic<int> finished{0};
  test::run_world(
      kind, n,
      [&](ring::Transport& t) {
        if (t.rank() == n - 1) {
          // A stalled rank stays alive and silent until the others are done (bounded, in
          // case they hang, which the test is about).
          const auto until = std::chrono::steady_clock::now() + 20 * t.timeout();
          while (absence == Absence::kStalls && finished.load() < n - 1 &&
                 std::chrono::steady_clock::now() < until) {
            std::this_thread::sleep_for(milliseconds(5));
          }
          return;
        }
        std::string seen = "ok";
        try {
          collective(t);
        } catch (const hvd::BackendError&) {
          seen = "backend";
        } catch (const hvd::TimeoutError&) {
          seen = "timeout";
        }
        const std::lock_guard<std::mutex> lock(mutex);
        outcome[static_cast<size_t>(t.rank())] = seen;
        ++finished;
      },
      milliseconds(300));
  return outcome;
}

bool all_failed(const std::vector<std::string>& outcome) {
  for (const std::string& o : outcome) {
    if (o != "backend" && o != "timeout") return false;
  }
  return true;
}

void allreduce_of(ring::Transport& t, size_t count) {
  std::vector<float> buf(count, 1.0f);
  ring::allreduce(t, BufferView{buf.data(), count, DataType::kFloat32, {}}, ReduceOp::kSum);
}

void absent_rank(TransportKind kind) {
  for (const Absence absence : {Absence::kLeaves, Absence::kStalls}) {
    for (const int n : {2, 3, 5}) {
      CAPTURE(absence == Absence::kLeaves ? "leaves" : "stalls");
      CAPTURE(n);
      CHECK(all_failed(
          with_absent_rank(kind, n, absence, [](ring::Transport& t) { allreduce_of(t, 7); })));
      CHECK(all_failed(with_absent_rank(
          kind, n, absence, [](ring::Transport& t) { allreduce_of(t, size_t{1} << 20); })));
      CHECK(all_failed(with_absent_rank(kind, n, absence, [](ring::Transport& t) {
        // Rooted at the absent rank: a root that only sends might finish into buffers.
        std::vector<int32_t> buf(size_t{1} << 18);
        ring::broadcast(t, BufferView{buf.data(), buf.size(), DataType::kInt32, {}}, t.size() - 1);
      })));
      CHECK(all_failed(
          with_absent_rank(kind, n, absence, [](ring::Transport& t) { ring::barrier(t); })));
    }
  }
}

}  // namespace

TEST_CASE("ring failures: over shm the others throw when a rank leaves or stalls") {
  absent_rank(TransportKind::kShm);
}

TEST_CASE("ring failures: over tcp the others throw when a rank leaves or stalls") {
  absent_rank(TransportKind::kTcp);
}
