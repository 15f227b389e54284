// SPDX-License-Identifier: Apache-2.0
// WhyResponder: the why signal makes a rank send its state to the run's store.

#include "diag/why_responder.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "auth/run_secret.h"
#include "hvd/env_keys.h"
#include "hvd/why_protocol.h"
#include "store/kv_client.h"
#include "store/kv_server.h"

namespace diag = hvd::diag;
namespace store = hvd::store;

namespace {

std::atomic<int> g_previous_calls{0};
void previous_handler(int) { g_previous_calls.fetch_add(1); }

struct StoreFixture {
  hvd::auth::RunSecret secret = hvd::auth::RunSecret::generate();
  store::KvServer server{"127.0.0.1", 0, secret};
  hvd::EnvMap env() const {
    return {{hvd::env::kStoreAddr, "127.0.0.1"},
            {hvd::env::kStorePort, std::to_string(server.port())},
            {hvd::env::kRunSecret, secret.hex()},
            {"PATH", "/nonexistent"}};
  }
  store::KvClient client() const {
    return store::KvClient("127.0.0.1", server.port(), secret, std::chrono::seconds(10));
  }
};

diag::QueueView one_pending() {
  diag::QueueView v;
  v.pending.push_back(diag::OpRecord{"grad.7", "allreduce", 0, 12, 3.0});
  v.submitted = 12;
  return v;
}

}  // namespace

TEST_CASE("why responder: the signal sends the rank's queue to the store, after the old handler") {
  StoreFixture f;
  struct sigaction old {};
  struct sigaction mine {};
  mine.sa_handler = previous_handler;
  sigemptyset(&mine.sa_mask);
  sigaction(hvd::why::kWhySignal, &mine, &old);
  g_previous_calls = 0;
  {
    diag::WhyResponder responder(3, f.env(), one_pending);
    raise(hvd::why::kWhySignal);
    store::KvClient c = f.client();
    const auto answer =
        nlohmann::json::parse(c.get(hvd::why::why_rank_key(3), std::chrono::seconds(30)));
    CHECK(answer["rank"] == 3);
    CHECK(answer["pid"] == static_cast<int64_t>(getpid()));
    CHECK(answer["libhvd"]["pending"][0]["name"] == "grad.7");
    CHECK(answer["libhvd"]["submitted"] == 12);
    // No Python dump: the native stack's place says why there is none (no eu-stack on PATH).
    CHECK(answer["native_stack"].get<std::string>().find("eu-stack not found") == 0);
    CHECK(g_previous_calls == 1);
  }
  struct sigaction now {};
  sigaction(hvd::why::kWhySignal, nullptr, &now);
  const bool restored = now.sa_handler == previous_handler;
  CHECK(restored);  // stop() put the old handler back
  sigaction(hvd::why::kWhySignal, &old, nullptr);
}

TEST_CASE("why responder: a Python dump in HVD_WHY_DIR is sent and the file emptied") {
  StoreFixture f;
  char folder[] = "/tmp/hvd-why-test-XXXXXX";
  REQUIRE(mkdtemp(folder) != nullptr);
  const std::string dump = std::string(folder) + "/py.0";
  std::ofstream(dump) << "Current thread 0x1 (most recent call first):\n"
                         "  File \"/u/t.py\", line 7 in step\n";
  hvd::EnvMap env = f.env();
  env[hvd::env::kWhyDir] = folder;
  {
    diag::WhyResponder responder(0, env, one_pending);
    raise(hvd::why::kWhySignal);
    store::KvClient c = f.client();
    const auto answer =
        nlohmann::json::parse(c.get(hvd::why::why_rank_key(0), std::chrono::seconds(30)));
    CHECK(answer["python_stack"].get<std::string>().find("line 7 in step") != std::string::npos);
    CHECK_FALSE(answer.contains("native_stack"));
  }
  struct stat st {};
  REQUIRE(stat(dump.c_str(), &st) == 0);
  CHECK(st.st_size == 0);
  unlink(dump.c_str());
  rmdir(folder);
}

TEST_CASE("why responder: a stall report reaches the store under why/stall") {
  StoreFixture f;
  diag::WhyResponder responder(0, f.env(), one_pending);
  responder.publish_stall(R"({"tensors":[]})");
  store::KvClient c = f.client();
  CHECK(c.get(hvd::why::kWhyStallKey, std::chrono::seconds(30)) == R"({"tensors":[]})");
}

TEST_CASE("why responder: none without hvdrun's store") {
  CHECK(diag::make_why_responder(0, hvd::EnvMap{}, one_pending) == nullptr);
}
