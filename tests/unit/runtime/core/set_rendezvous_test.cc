// SPDX-License-Identifier: Apache-2.0
// SetRendezvousStore: the members of a new process set exchange keys in rounds over the global
// channel while the other ranks only finish(); failures reach every rank alike.

#include "core/set_rendezvous.h"

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

#include "fakes/fake_channel.h"
#include "fakes/thread_world.h"
#include "hvd/error.h"

namespace core = hvd::core;
using hvd::test::FakeChannel;
using hvd::test::FakeChannelHub;

namespace {
constexpr std::chrono::milliseconds kTimeout{1000};
bool member(int rank) { return rank == 1 || rank == 3; }
}  // namespace

TEST_CASE("set_rendezvous: members see each other's keys after each barrier, others only finish") {
  FakeChannelHub hub(4);
  std::vector<std::string> seen(4);
  hvd::test::spawn(4, [&](int rank) {
    FakeChannel channel(hub, rank);
    core::SetRendezvousStore store(channel);
    if (member(rank)) {
      // Two barriers, as the shm transport's setup does.
      store.set("k" + std::to_string(rank), "v" + std::to_string(rank));
      store.barrier("one", kTimeout);
      seen[static_cast<size_t>(rank)] = store.get("k1", kTimeout) + store.get("k3", kTimeout);
      store.set("late" + std::to_string(rank), "x");
      store.barrier("two", kTimeout);
      seen[static_cast<size_t>(rank)] += store.get(rank == 1 ? "late3" : "late1", kTimeout);
    }
    CHECK(store.finish().empty());
  });
  CHECK(seen[1] == "v1v3x");
  CHECK(seen[3] == "v1v3x");
  CHECK(seen[0].empty());
}

TEST_CASE("set_rendezvous: a key nobody set is an error at once, not a wait") {
  FakeChannelHub hub(1);
  FakeChannel channel(hub, 0);
  core::SetRendezvousStore store(channel);
  CHECK_THROWS_AS(store.get("nobody", kTimeout), hvd::BootstrapError);
  CHECK(store.finish().empty());
}

TEST_CASE("set_rendezvous: one member's failure is every rank's, naming that rank") {
  FakeChannelHub hub(4);
  std::vector<std::string> errors(4);
  hvd::test::spawn(4, [&](int rank) {
    FakeChannel channel(hub, rank);
    core::SetRendezvousStore store(channel);
    std::string mine;
    if (rank == 3) {
      mine = "connect timed out";  // failed before its first barrier
    } else if (rank == 1) {
      store.barrier("one", kTimeout);  // rounds go on until rank 3 reports
    }
    errors[static_cast<size_t>(rank)] = store.finish(mine);
  });
  for (const std::string& e : errors) CHECK(e == "rank 3: connect timed out");
}

TEST_CASE("set_rendezvous: members at different barriers are told which") {
  FakeChannelHub hub(2);
  std::atomic<int> mismatches{0};
  hvd::test::spawn(2, [&](int rank) {
    FakeChannel channel(hub, rank);
    core::SetRendezvousStore store(channel);
    try {
      store.barrier(rank == 0 ? "tcp" : "shm/named", kTimeout);
    } catch (const hvd::BootstrapError& e) {
      CHECK(std::string(e.what()).find("is at barrier") != std::string::npos);
      ++mismatches;
    }
    store.finish();
  });
  CHECK(mismatches == 2);
}
