// SPDX-License-Identifier: Apache-2.0
// The hvdrun method end to end: a real KvServer in process and N ranks as threads, each with
// its own EnvMap as hvdrun would set it, going through the front door bootstrap().
#include "bootstrap/hvdrun_bootstrap.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "auth/run_secret.h"
#include "bootstrap/bootstrap.h"
#include "hvd/error.h"
#include "rank_threads.h"
#include "store/kv_server.h"

namespace boot = hvd::bootstrap;
using hvd::EnvMap;
using std::chrono::milliseconds;

namespace {

constexpr milliseconds kBootstrapBound(20000);   // liveness bound, never reached when things work
constexpr milliseconds kBootstrapExpiring(300);  // meant to expire

// The run's secret, as hvdrun draws one per run.
const hvd::auth::RunSecret& run_secret() {
  static const hvd::auth::RunSecret secret = hvd::auth::RunSecret::generate();
  return secret;
}

// What hvdrun gives rank r of `size`; `hosts` non-empty means "no local/cross facts, only
// HOROVOD_HOSTNAME", as a launcher that does not know the layout would do.
EnvMap rank_env(const hvd::store::KvServer& server, int rank, int size, const std::string& run,
                const std::vector<std::string>& hosts = {}) {
  EnvMap env = {{"HOROVOD_RANK", std::to_string(rank)},
                {"HOROVOD_SIZE", std::to_string(size)},
                {"HVD_STORE_ADDR", "127.0.0.1"},
                {"HVD_STORE_PORT", std::to_string(server.port())},
                {"HVD_RUN_ID", run},
                {"HVD_RUN_SECRET", run_secret().hex()}};
  if (hosts.empty()) {
    env["HOROVOD_LOCAL_RANK"] = std::to_string(rank);
    env["HOROVOD_LOCAL_SIZE"] = std::to_string(size);
    env["HOROVOD_CROSS_RANK"] = "0";
    env["HOROVOD_CROSS_SIZE"] = "1";
    env["HOROVOD_HOSTNAME"] = "localhost";
  } else {
    env["HOROVOD_HOSTNAME"] = hosts[static_cast<size_t>(rank)];
  }
  return env;
}

boot::BootstrapOptions options(milliseconds timeout) {
  boot::BootstrapOptions o;
  o.timeout = timeout;
  return o;
}

}  // namespace

TEST_CASE("hvdrun bootstrap: 4 ranks get their world and share the store") {
  constexpr int kSize = 4;
  hvd::store::KvServer server("127.0.0.1", 0, run_secret());
  std::vector<boot::WorldInfo> worlds(kSize);
  std::vector<std::string> neighbour(kSize), second_round(kSize);
  const auto errors = hvd::test::run_ranks(kSize, [&](int r) {
    boot::Bootstrapped b =
        boot::bootstrap(rank_env(server, r, kSize, "run1"), options(kBootstrapBound));
    worlds[r] = b.world;
    b.store->set("addr/" + std::to_string(r), "10.0.0." + std::to_string(r));
    b.store->barrier("after-set", kBootstrapBound);
    neighbour[r] = b.store->get("addr/" + std::to_string((r + 1) % kSize), kBootstrapBound);
    b.store->barrier("again", kBootstrapBound);  // a second barrier, and a barrier name used twice
    b.store->barrier("again", kBootstrapBound);
    if (r == 3) b.store->set("late", "from 3");
    second_round[r] =
        b.store->get("late", kBootstrapBound);  // hvdrun's store waits for a later set
  });
  for (int r = 0; r < kSize; ++r) {
    INFO("rank " << r);
    CHECK(hvd::test::what_of(errors[r]) == "");
    CHECK(worlds[r].method == "hvdrun");
    CHECK(worlds[r].rank == r);
    CHECK(worlds[r].size == kSize);
    CHECK(worlds[r].local_rank == r);
    CHECK(worlds[r].local_size == kSize);
    CHECK(worlds[r].cross_size == 1);
    CHECK(worlds[r].hostname == "localhost");
    CHECK(neighbour[r] == "10.0.0." + std::to_string((r + 1) % kSize));
    CHECK(second_round[r] == "from 3");
  }
}

TEST_CASE("hvdrun bootstrap: local and cross ranks from host names when hvdrun omits them") {
  constexpr int kSize = 6;
  const std::vector<std::string> hosts = {"n1", "n1", "n2", "n2", "n1", "n3"};
  hvd::store::KvServer server("127.0.0.1", 0, run_secret());
  std::vector<boot::WorldInfo> w(kSize);
  const auto errors = hvd::test::run_ranks(kSize, [&](int r) {
    w[r] =
        boot::bootstrap(rank_env(server, r, kSize, "run2", hosts), options(kBootstrapBound)).world;
  });
  for (int r = 0; r < kSize; ++r) CHECK(hvd::test::what_of(errors[r]) == "");
  const auto local_rank = [&w](int r) { return w[r].local_rank; };
  CHECK(std::vector<int>{local_rank(0), local_rank(1), local_rank(2), local_rank(3), local_rank(4),
                         local_rank(5)} == std::vector<int>{0, 1, 0, 1, 2, 0});
  CHECK(w[0].local_size == 3);
  CHECK(w[2].local_size == 2);
  CHECK(w[5].local_size == 1);
  CHECK(w[0].cross_rank == 0);
  CHECK(w[3].cross_rank == 1);
  CHECK(w[5].cross_rank == 2);
  CHECK(w[4].cross_size == 3);
}

TEST_CASE("hvdrun bootstrap: a missing rank makes get and barrier time out with a clear error") {
  hvd::store::KvServer server("127.0.0.1", 0, run_secret());
  std::vector<std::string> barrier_error(3), get_error(3);
  const auto errors = hvd::test::run_ranks(3, [&](int r) {  // rank 3 of 4 never starts
    boot::Bootstrapped b =
        boot::bootstrap(rank_env(server, r, 4, "run3"), options(kBootstrapBound));
    b.store->set("addr/" + std::to_string(r), "x");
    try {
      b.store->barrier("everyone", kBootstrapExpiring);
    } catch (const hvd::TimeoutError& e) {
      barrier_error[r] = e.what();
    }
    try {
      b.store->get("addr/3", kBootstrapExpiring);
    } catch (const hvd::TimeoutError& e) {
      get_error[r] = e.what();
    }
  });
  for (int r = 0; r < 3; ++r) {
    INFO("rank " << r);
    CHECK(hvd::test::what_of(errors[r]) == "");
    CHECK(barrier_error[r].find("barrier 'everyone': 3 of 4 ranks arrived within 300 ms") !=
          std::string::npos);
    CHECK(barrier_error[r].find("run 'run3'") != std::string::npos);
    CHECK(get_error[r].find("key 'addr/3' was not set by any rank within 300 ms") !=
          std::string::npos);
  }
}

TEST_CASE("hvdrun bootstrap: a missing rank while gathering host names fails the chain") {
  hvd::store::KvServer server("127.0.0.1", 0, run_secret());
  const std::vector<std::string> hosts = {"a", "a", "b"};
  const auto errors = hvd::test::run_ranks(2, [&](int r) {  // rank 2 of 3 never starts
    boot::bootstrap(rank_env(server, r, 3, "run4", hosts), options(kBootstrapExpiring));
  });
  for (const auto& e : errors) {
    CHECK_THROWS_AS(std::rethrow_exception(e), hvd::TimeoutError);
    const std::string text = hvd::test::what_of(e);
    CHECK(text.find("bootstrap: method 'hvdrun' applies but failed:\n  hvdrun: started by hvdrun "
                    "(HOROVOD_RANK=") == 0);
    CHECK(text.find("barrier 'hvd.gather/hostnames/in': 2 of 3 ranks arrived") !=
          std::string::npos);
    CHECK(text.find("\n  pmix: not tried\n  mpi: not tried\n  single: not tried") !=
          std::string::npos);
  }
}

TEST_CASE("hvdrun bootstrap: runs sharing a server do not see each other's keys") {
  hvd::store::KvServer server("127.0.0.1", 0, run_secret());
  std::vector<std::string> seen(2);
  const auto errors = hvd::test::run_ranks(2, [&](int i) {  // two 1-rank runs
    boot::Bootstrapped b = boot::bootstrap(rank_env(server, 0, 1, "run-" + std::to_string(i)),
                                           options(kBootstrapBound));
    b.store->set("k", "mine " + std::to_string(i));
    b.store->barrier("b", kBootstrapBound);
    seen[i] = b.store->get("k", kBootstrapBound);
  });
  CHECK(hvd::test::what_of(errors[0]) == "");
  CHECK(seen == std::vector<std::string>{"mine 0", "mine 1"});
}

TEST_CASE("hvdrun bootstrap: malformed variables are ConfigErrors naming them") {
  hvd::store::KvServer server("127.0.0.1", 0, run_secret());
  EnvMap env = rank_env(server, 0, 2, "run5");
  env["HOROVOD_RANK"] = "2";
  CHECK_THROWS_WITH_AS(boot::bootstrap(env, options(kBootstrapExpiring)),
                       doctest::Contains("HOROVOD_RANK='2' is out of range [0, 1]"),
                       hvd::ConfigError);
  env = rank_env(server, 0, 2, "run5");
  env["HOROVOD_LOCAL_SIZE"] = "x";
  CHECK_THROWS_WITH_AS(boot::HvdrunBootstrap().start(env, options(kBootstrapExpiring)),
                       "HOROVOD_LOCAL_SIZE='x' is not an integer", hvd::ConfigError);
  env = rank_env(server, 0, 1, "run5");
  env["HVD_STORE_PORT"] = "1";  // nothing listens there
  CHECK_THROWS_WITH_AS(boot::bootstrap(env, options(milliseconds(200))),
                       doctest::Contains("hvdrun: started by hvdrun"), hvd::Error);
}
