// SPDX-License-Identifier: Apache-2.0
#include "control/controller.h"
#include "control/join_rules.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "common/clock.h"
#include "fakes/fake_channel.h"
#include "fakes/thread_world.h"
#include "hvd/error.h"

namespace control = hvd::control;
using hvd::test::FakeChannel;
using hvd::test::FakeChannelHub;

namespace {

// A controller fed as libhvd's queue feeds it: run_cycle() borrows each request, which must
// stay put until it ran; this one keeps every request it was given for the whole test.
class QueuedController {
 public:
  QueuedController(control::Channel& channel, control::ControllerOptions options)
      : controller_(channel, std::move(options)) {}
  const control::CycleResult& run_cycle(std::vector<control::Request> fresh, bool want_shutdown,
                                        const control::FoldInput& fold = {}) {
    std::vector<const control::Request*> borrowed;
    for (control::Request& r : fresh) {
      kept_.push_back(std::move(r));
      borrowed.push_back(&kept_.back());
    }
    return controller_.run_cycle(borrowed, want_shutdown, fold);
  }
  size_t in_flight() const { return controller_.in_flight(); }
  control::Controller& inner() { return controller_; }

 private:
  control::Controller controller_;
  std::deque<control::Request> kept_;  // a deque: its elements never move
};

// Runs `body(rank, controller)` as `size` ranks on threads; rethrows the first failure.
void spawn(int size, FakeChannelHub& hub, control::ControllerOptions options,
           const std::function<void(int, QueuedController&)>& body) {
  hvd::test::spawn(size, [&](int rank) {
    FakeChannel channel(hub, rank);
    QueuedController controller(channel, options);
    body(rank, controller);
  });
}

control::Request request(int rank, const std::string& name, int64_t elements = 16) {
  control::Request r;
  r.rank = rank;
  r.name = name;
  r.shape = {elements};
  return r;
}

// The default shape, for run_names.
control::Request plain(int rank, const std::string& name) { return request(rank, name); }

// What a cycle produced, comparable across ranks.
std::string describe(const control::CycleResult& result) {
  return control::encode_responses(result.responses) + (result.shutdown ? "S" : "-");
}

// Each rank submits `names` in its own order, a few per cycle, and cycles until every name has
// run; returns the per-cycle descriptions (for the cross-rank check) and the names that ran.
struct RankLog {
  std::vector<std::string> cycles;
  std::multiset<std::string> ran;
  std::map<std::string, std::string> errors;
};

RankLog run_names(int rank, QueuedController& c, std::vector<std::string> names,
                  const std::function<control::Request(int, const std::string&)>& make) {
  std::mt19937 rng(static_cast<unsigned>(rank) * 31u + 7u);
  std::shuffle(names.begin(), names.end(), rng);
  RankLog log;
  size_t next = 0, done = 0;
  while (done < names.size()) {
    std::vector<control::Request> fresh;
    const size_t batch = 1 + rng() % 4;  // ranks submit at different paces
    for (size_t i = 0; i < batch && next < names.size(); ++i)
      fresh.push_back(make(rank, names[next++]));
    const control::CycleResult result = c.run_cycle(std::move(fresh), false);
    log.cycles.push_back(describe(result));
    for (const control::Response& r : result.responses) {
      for (const std::string& n : r.names) {
        log.ran.insert(n);
        if (r.kind == control::Response::Kind::kError) log.errors[n] = r.error;
        ++done;
      }
    }
  }
  return log;
}

std::vector<std::string> tensor_names(int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back("grad/" + std::to_string(i));
  return names;
}

}  // namespace

TEST_CASE("controller: any submission order on 1 to 8 ranks, identical plans everywhere") {
  for (int size = 1; size <= 8; ++size) {
    CAPTURE(size);
    FakeChannelHub hub(size);
    std::vector<RankLog> logs(static_cast<size_t>(size));
    spawn(size, hub, {}, [&](int rank, QueuedController& c) {
      logs[static_cast<size_t>(rank)] = run_names(rank, c, tensor_names(40), plain);
    });
    for (const RankLog& log : logs) {
      CHECK(log.cycles == logs[0].cycles);  // same responses, same order, same cycles
      CHECK(log.ran.size() == 40);
      CHECK(std::set<std::string>(log.ran.begin(), log.ran.end()).size() == 40);  // once each
      CHECK(log.errors.empty());
    }
  }
}

TEST_CASE("controller: the second step of the same tensors runs from the cache") {
  FakeChannelHub hub(4);
  long gathers_after_first = 0;
  std::vector<RankLog> second(4);
  spawn(4, hub, {}, [&](int rank, QueuedController& c) {
    run_names(rank, c, tensor_names(30), plain);  // first step: negotiated
    if (rank == 0) gathers_after_first = hub.gathers;
    // Second step: same tensors, each rank in its own order again.
    second[static_cast<size_t>(rank)] = run_names(rank, c, tensor_names(30), plain);
  });
  CHECK(gathers_after_first > 0);
  CHECK(hub.gathers == gathers_after_first);  // not one gather in the second step
  for (const RankLog& log : second) {
    CHECK(log.cycles == second[0].cycles);  // cache hits run in the same order everywhere
    CHECK(log.ran.size() == 30);
  }
}

TEST_CASE("controller: ranks that disagree fail that tensor everywhere, others still run") {
  FakeChannelHub hub(3);
  std::vector<RankLog> logs(3);
  spawn(3, hub, {}, [&](int rank, QueuedController& c) {
    logs[static_cast<size_t>(rank)] =
        run_names(rank, c, {"good", "bad"}, [](int r, const std::string& name) {
          control::Request q = request(r, name);
          if (name == "bad" && r == 2) q.dtype = hvd::DataType::kInt32;
          return q;
        });
  });
  for (const RankLog& log : logs) {
    CHECK(log.errors.count("good") == 0);
    REQUIRE(log.errors.count("bad") == 1);
    CHECK(log.errors.at("bad").find("rank 2 has int32") != std::string::npos);
  }
}

TEST_CASE("controller: a cached tensor that changes shape is negotiated again") {
  FakeChannelHub hub(2);
  std::vector<RankLog> logs(2);
  spawn(2, hub, {}, [&](int rank, QueuedController& c) {
    run_names(rank, c, {"x", "y"}, plain);
    // Every rank changes x: renegotiated and run with the new shape.
    run_names(rank, c, {"x", "y"},
              [](int r, const std::string& n) { return request(r, n, n == "x" ? 64 : 16); });
    // Only rank 1 changes y: an error for y on both ranks.
    logs[static_cast<size_t>(rank)] =
        run_names(rank, c, {"x", "y"}, [](int r, const std::string& n) {
          return request(r, n, n == "x" ? 64 : (r == 1 ? 32 : 16));
        });
  });
  for (const RankLog& log : logs) {
    CHECK(log.errors.count("x") == 0);
    REQUIRE(log.errors.count("y") == 1);
    CHECK(log.errors.at("y").find("mismatched shapes") != std::string::npos);
  }
}

TEST_CASE("controller: small tensors are fused, and a shutdown request reaches every rank") {
  FakeChannelHub hub(2);
  control::ControllerOptions options;
  options.fusion_threshold_bytes = 4 * 16 * 10;  // ten 16-float tensors per buffer
  std::vector<size_t> responses(2);
  // Not vector<bool>: its elements share a word, so two ranks setting theirs at once race (and
  // may lose a write); TSan flagged it.
  std::vector<char> stopped(2, 0);
  spawn(2, hub, options, [&](int rank, QueuedController& c) {
    std::vector<control::Request> all;
    for (const std::string& n : tensor_names(25)) all.push_back(request(rank, n));
    const control::CycleResult r = c.run_cycle(all, false);
    responses[static_cast<size_t>(rank)] = r.responses.size();
    stopped[static_cast<size_t>(rank)] = c.run_cycle({}, rank == 1).shutdown;
  });
  CHECK(responses[0] == 3);  // 25 tensors in buffers of 10
  CHECK(responses[1] == 3);
  CHECK(stopped[0] != 0);
  CHECK(stopped[1] != 0);
}

TEST_CASE("controller: a tensor only some ranks submit is reported with the missing ranks") {
  FakeChannelHub hub(3);
  hvd::FakeClock clock;
  std::vector<std::string> warnings;  // written by the coordinator's thread only
  control::ControllerOptions options;
  options.clock = &clock;
  options.stall.warning_seconds = 60;
  options.stall.shutdown_seconds = 120;
  options.warn = [&warnings](const std::string& line) { warnings.push_back(line); };
  std::vector<std::string> failures(3);
  spawn(3, hub, options, [&](int rank, QueuedController& c) {
    std::vector<control::Request> fresh;
    if (rank != 1) fresh.push_back(request(rank, "late"));  // rank 1 never submits it
    c.run_cycle(fresh, false);
    c.run_cycle({}, false);
    const size_t before = warnings.size();
    if (rank == 0) clock.advance(std::chrono::seconds(61));
    c.run_cycle({}, false);  // the coordinator warns here (after the clock moved)
    if (rank == 0) CHECK(warnings.size() == before + 1);
    if (rank == 0) clock.advance(std::chrono::seconds(60));
    try {
      c.run_cycle({}, false);  // past the shutdown time: the coordinator fails the cycle
    } catch (const hvd::TimeoutError& e) {
      failures[static_cast<size_t>(rank)] = e.what();
    }
  });
  // Once when 60 s passed, and again one warning period later, as the shutdown comes.
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("missing ranks: 1") != std::string::npos);
  CHECK(warnings[0].find("late") != std::string::npos);
  CHECK(failures[0].find("stall check") != std::string::npos);
}

TEST_CASE("controller: a cached tensor that one rank stops submitting is reported too") {
  // Cached tensors run on the bit vote and never reach the stall inspector; one that waits
  // past the stall floor is voted invalid, negotiated again, and then reported.
  FakeChannelHub hub(3);
  hvd::FakeClock clock;
  std::vector<std::string> warnings;  // written by the coordinator's thread only
  control::ControllerOptions options;
  options.clock = &clock;
  options.stall.warning_seconds = 60;
  options.warn = [&warnings](const std::string& line) { warnings.push_back(line); };
  spawn(3, hub, options, [&](int rank, QueuedController& c) {
    REQUIRE(c.run_cycle({request(rank, "grad")}, false).responses.size() == 1);  // now cached
    std::vector<control::Request> fresh;
    if (rank != 1) fresh.push_back(request(rank, "grad"));  // rank 1 skips it this step
    CHECK(c.run_cycle(fresh, false).responses.empty());
    if (rank == 0) clock.advance(std::chrono::seconds(6));  // past the 5 s floor
    for (int i = 0; i < 3; ++i) CHECK(c.run_cycle({}, false).responses.empty());
    if (rank == 0) clock.advance(std::chrono::seconds(61));
    c.run_cycle({}, false);
  });
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("[missing ranks: 1] tensor: grad") != std::string::npos);
}

namespace {

// Rank 0 of 2 whose peer's gathered bytes are whatever the test says; the peer otherwise
// agrees with everything (its vote bits are rank 0's own).
class ScriptedPeerChannel final : public control::Channel {
 public:
  explicit ScriptedPeerChannel(std::string peer_bytes) : peer_bytes_(std::move(peer_bytes)) {}
  int rank() const override { return 0; }
  int size() const override { return 2; }
  std::vector<std::string> gather(const std::string& mine, int) override {
    return {mine, peer_bytes_};
  }
  std::string broadcast(const std::string& bytes, int) override { return bytes; }
  void vote(std::vector<uint64_t>&, size_t, const control::VoteFold&) override {}

 private:
  std::string peer_bytes_;
};

}  // namespace

TEST_CASE("controller: a peer's request that claims another rank is refused, naming both") {
  // Rank 1 sends a request in rank 0's name: it could otherwise complete or block rank 0's
  // tensors. The coordinator refuses it.
  ScriptedPeerChannel channel(control::encode_requests({request(0, "grad")}));
  QueuedController controller(channel, {});
  CHECK_THROWS_WITH_AS(controller.run_cycle({request(0, "grad")}, false),
                       "control message from rank 1: a request for 'grad' claims to be rank "
                       "0's; refused",
                       hvd::BackendError);
  SUBCASE("its own rank is fine") {
    ScriptedPeerChannel honest(control::encode_requests({request(1, "grad")}));
    QueuedController c(honest, {});
    const control::CycleResult result = c.run_cycle({request(0, "grad")}, false);
    REQUIRE(result.responses.size() == 1);
    CHECK(result.responses[0].kind == control::Response::Kind::kRun);
  }
}

namespace {

// This rank's side of folding (control/vote_fold.h): every element of a float32 tensor is
// rank + 1; `refuse` says the tensor cannot fold here (as for a GPU tensor).
struct FoldSource {
  int rank = 0;
  bool refuse = false;
  int calls = 0;
  control::FoldInput input() {
    return [this](const control::Response& r, const control::Request&, void* dst) {
      ++calls;
      if (refuse) return false;
      const std::vector<float> mine(static_cast<size_t>(r.counts.at(0)),
                                    static_cast<float>(rank + 1));
      std::memcpy(dst, mine.data(), control::fold_bytes(r));
      return true;
    };
  }
};

std::vector<float> folded_floats(const control::CycleResult& result) {
  REQUIRE(result.folded != nullptr);
  std::vector<float> out(static_cast<size_t>(result.folded->counts.at(0)));
  std::memcpy(out.data(), result.folded_data, out.size() * sizeof(float));
  return out;
}

std::vector<std::string> names_of(const std::vector<control::Response>& responses) {
  std::vector<std::string> names;
  for (const control::Response& r : responses)
    names.insert(names.end(), r.names.begin(), r.names.end());
  return names;
}

}  // namespace

TEST_CASE("controller: a lone small cached allreduce rides on the vote, one collective") {
  for (int size = 1; size <= 8; ++size) {
    CAPTURE(size);
    FakeChannelHub hub(size);
    const float sum = static_cast<float>(size * (size + 1) / 2);
    spawn(size, hub, {}, [&](int rank, QueuedController& c) {
      FoldSource source{rank};
      // First: negotiated (nothing cached yet), run as a response.
      const control::CycleResult first = c.run_cycle({request(rank, "x")}, false, source.input());
      CHECK(names_of(first.responses) == std::vector<std::string>{"x"});
      CHECK(first.folded == nullptr);
      // The hub's counts are rank 0's to keep and read.
      const long gathers = rank == 0 ? hub.gathers : 0, votes = rank == 0 ? hub.votes : 0;
      for (int step = 0; step < 3; ++step) {
        const control::CycleResult next = c.run_cycle({request(rank, "x")}, false, source.input());
        CHECK(next.responses.empty());
        REQUIRE(next.folded != nullptr);
        CHECK(next.folded->names == std::vector<std::string>{"x"});
        CHECK(folded_floats(next) == std::vector<float>(16, sum));
        CHECK(c.in_flight() == 0);
      }
      if (rank == 0) {
        CHECK(hub.gathers == gathers);
        CHECK(hub.votes == votes + 3);
      }
    });
  }
}

TEST_CASE("controller: a rank without the tensor ready: no fold anywhere, and later it runs") {
  FakeChannelHub hub(3);
  spawn(3, hub, {}, [&](int rank, QueuedController& c) {
    FoldSource source{rank};
    c.run_cycle({request(rank, "x")}, false, source.input());
    std::vector<control::Request> fresh;
    if (rank != 2) fresh.push_back(request(rank, "x"));
    const control::CycleResult waiting = c.run_cycle(fresh, false, source.input());
    CHECK(waiting.folded == nullptr);
    CHECK(waiting.responses.empty());
    // Rank 2 catches up; the others' x waited with the controller, and now folds.
    fresh.clear();
    if (rank == 2) fresh.push_back(request(rank, "x"));
    const control::CycleResult caught_up = c.run_cycle(fresh, false, source.input());
    CHECK(caught_up.responses.empty());
    CHECK(folded_floats(caught_up) == std::vector<float>(16, 6.0f));
  });
}

TEST_CASE("controller: a rank that cannot fold, or two tensors pending, run the normal way") {
  FakeChannelHub hub(3);
  spawn(3, hub, {}, [&](int rank, QueuedController& c) {
    FoldSource source{rank};
    c.run_cycle({request(rank, "x"), request(rank, "y")}, false, source.input());
    CHECK(source.calls == 0);  // nothing cached yet
    // Two cached tensors pending: never folded, fused as before.
    const control::CycleResult two =
        c.run_cycle({request(rank, "x"), request(rank, "y")}, false, source.input());
    CHECK(source.calls == 0);
    CHECK(two.folded == nullptr);
    CHECK(names_of(two.responses) == std::vector<std::string>{"x", "y"});
    // Rank 1 cannot fold x: every rank runs it as a response.
    source.refuse = rank == 1;
    const control::CycleResult refused = c.run_cycle({request(rank, "x")}, false, source.input());
    CHECK(source.calls == 1);
    CHECK(refused.folded == nullptr);
    CHECK(names_of(refused.responses) == std::vector<std::string>{"x"});
    // A mixed cycle: rank 0 has y only (it would fold), the others x and y.
    source.refuse = false;
    std::vector<control::Request> fresh{request(rank, "y")};
    if (rank != 0) fresh.push_back(request(rank, "x"));
    const control::CycleResult mixed = c.run_cycle(fresh, false, source.input());
    CHECK(mixed.folded == nullptr);
    CHECK(names_of(mixed.responses) == std::vector<std::string>{"y"});
    // x waits on rank 1 and 2 until rank 0 submits it.
    const control::CycleResult last =
        c.run_cycle(rank == 0 ? std::vector<control::Request>{request(rank, "x")}
                              : std::vector<control::Request>{},
                    false, source.input());
    CHECK(folded_floats(last) == std::vector<float>(16, 6.0f));
  });
}

TEST_CASE("controller: a tensor above kFoldBytes never rides on the vote") {
  FakeChannelHub hub(2);
  const int64_t elements = static_cast<int64_t>(control::kFoldBytes / sizeof(float)) + 1;
  spawn(2, hub, {}, [&](int rank, QueuedController& c) {
    FoldSource source{rank};
    for (int step = 0; step < 3; ++step) {
      const control::CycleResult r =
          c.run_cycle({request(rank, "big", elements)}, false, source.input());
      CHECK(r.folded == nullptr);
      CHECK(names_of(r.responses) == std::vector<std::string>{"big"});
    }
    CHECK(source.calls == 0);
  });
}

TEST_CASE("controller: a borrowed request is not read once its response ran") {
  // As the runtime's queue does, each rank frees a request as soon as a response naming it
  // came back (ASan flags any later read), and submits at its own pace, so that cache hits
  // wait for other ranks over several cycles while the caller owns them.
  for (int size = 1; size <= 4; ++size) {
    CAPTURE(size);
    FakeChannelHub hub(size);
    hvd::test::spawn(size, [&](int rank) {
      FakeChannel channel(hub, rank);
      control::Controller c(channel, {});
      std::mt19937 rng(static_cast<unsigned>(rank) * 17u + 3u);
      for (int step = 0; step < 4; ++step) {  // step 0 negotiates, the others hit the cache
        std::vector<std::string> names = tensor_names(12);
        std::shuffle(names.begin(), names.end(), rng);
        std::map<std::string, std::unique_ptr<control::Request>> queued;
        size_t next = 0;
        while (next < names.size() || !queued.empty()) {
          std::vector<const control::Request*> fresh;
          for (size_t i = 1 + rng() % 3; i > 0 && next < names.size(); --i, ++next) {
            auto r = std::make_unique<control::Request>(request(rank, names[next]));
            fresh.push_back(r.get());
            queued.emplace(names[next], std::move(r));
          }
          const control::CycleResult& result = c.run_cycle(fresh, false);
          for (const control::Response& r : result.responses) {
            for (const std::string& n : r.names) CHECK(queued.erase(n) == 1);
          }
        }
        CHECK(c.in_flight() == 0);
      }
    });
  }
}

TEST_CASE("controller: a cache hit that runs beside a negotiation that evicts it still runs") {
  // Capacity 1: caching b (negotiated in the cycle) evicts a, whose hit is ready in that cycle.
  FakeChannelHub hub(2);
  control::ControllerOptions options;
  options.cache_capacity = 1;
  spawn(2, hub, options, [&](int rank, QueuedController& c) {
    c.run_cycle({request(rank, "a", 4)}, false);
    const control::CycleResult& both =
        c.run_cycle({request(rank, "a", 4), request(rank, "b", 8)}, false);
    CHECK(both.negotiated);
    REQUIRE(both.responses.size() == 1);  // fused
    CHECK(both.responses[0].names == std::vector<std::string>{"a", "b"});
    CHECK(both.responses[0].counts == std::vector<int64_t>{4, 8});
    // b is cached now and a is not: a is negotiated again.
    const control::CycleResult& again = c.run_cycle({request(rank, "a", 4)}, false);
    CHECK(again.negotiated);
    CHECK(names_of(again.responses) == std::vector<std::string>{"a"});
  });
}

TEST_CASE("controller: a step's plan is reused only while its cached responses are unchanged") {
  FakeChannelHub hub(2);
  spawn(2, hub, {}, [&](int rank, QueuedController& c) {
    c.run_cycle({request(rank, "a", 4), request(rank, "b", 8)}, false);  // negotiated, cached
    for (int step = 0; step < 2; ++step) {  // the second step may reuse the first one's plan
      const control::CycleResult& cached =
          c.run_cycle({request(rank, "a", 4), request(rank, "b", 8)}, false);
      CHECK_FALSE(cached.negotiated);
      REQUIRE(cached.responses.size() == 1);
      CHECK(cached.responses[0].counts == std::vector<int64_t>{4, 8});
    }
    // a changes shape: its cache bit is erased and a is negotiated again; afterwards it is cached
    // in the same bit (the lowest free one), so the ready responses sit where they sat before.
    const control::CycleResult& changed =
        c.run_cycle({request(rank, "a", 6), request(rank, "b", 8)}, false);
    CHECK(changed.negotiated);
    const control::CycleResult& after =
        c.run_cycle({request(rank, "a", 6), request(rank, "b", 8)}, false);
    CHECK_FALSE(after.negotiated);
    REQUIRE(after.responses.size() == 1);
    CHECK(after.responses[0].names == std::vector<std::string>{"a", "b"});
    CHECK(after.responses[0].counts == std::vector<int64_t>{6, 8});
    // A cycle with one of them only plans that one.
    const control::CycleResult& one = c.run_cycle({request(rank, "b", 8)}, false);
    REQUIRE(one.responses.size() == 1);
    CHECK(one.responses[0].counts == std::vector<int64_t>{8});
  });
}

// What may keep one rank busy (core/runtime_loop.cc spaces out the votes of the others unless
// it is work in another process set).
enum class Busy { kNothing, kFreshRequest, kWaitingRequest, kShutdown, kJoin, kElsewhere };

TEST_CASE("controller: every rank's vote says when some rank has work in another process set, "
          "and nothing else says so") {
  const std::vector<Busy> kinds = {Busy::kNothing, Busy::kFreshRequest, Busy::kWaitingRequest,
                                   Busy::kShutdown, Busy::kJoin,         Busy::kElsewhere};
  for (int size = 1; size <= 4; ++size) {
    for (Busy kind : kinds) {
      for (int busy_rank = 0; busy_rank < size; ++busy_rank) {
        CAPTURE(size);
        CAPTURE(static_cast<int>(kind));
        CAPTURE(busy_rank);
        FakeChannelHub hub(size);
        std::vector<int> set_work(static_cast<size_t>(size), -1);
        spawn(size, hub, {}, [&](int rank, QueuedController& c) {
          const bool mine = rank == busy_rank;
          std::vector<control::Request> fresh;
          // A tensor of the busy rank's alone waits for the others: still in flight next cycle.
          if (mine && (kind == Busy::kFreshRequest || kind == Busy::kWaitingRequest) && size > 1)
            fresh.push_back(request(rank, "only_mine"));
          if (mine && kind == Busy::kJoin && size > 1) {
            control::Request join = request(rank, control::kJoinName);
            join.type = control::OpType::kJoin;
            fresh.push_back(join);
          }
          c.inner().set_busy_elsewhere(mine && kind == Busy::kElsewhere);
          bool result = c.run_cycle(fresh, mine && kind == Busy::kShutdown).set_work;
          if (kind == Busy::kWaitingRequest) result = c.run_cycle({}, false).set_work;
          CHECK(result == c.inner().last_vote_set_work());
          set_work[static_cast<size_t>(rank)] = result ? 1 : 0;
        });
        // The reference: work in another set, on any rank, shows on every rank.
        for (int r = 0; r < size; ++r) {
          CAPTURE(r);
          CHECK(set_work[static_cast<size_t>(r)] == (kind == Busy::kElsewhere ? 1 : 0));
        }
      }
    }
  }
}
