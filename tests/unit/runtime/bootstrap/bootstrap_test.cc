// SPDX-License-Identifier: Apache-2.0
// The chain behind bootstrap(): which method it picks and what it says when none fits, with
// fake methods and with the real chain on fake environments.
#include "bootstrap/bootstrap.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "bootstrap/exchange_store.h"
#include "bootstrap/launch_probe.h"
#include "bootstrap/unavailable_bootstrap.h"
#include "hvd/error.h"

namespace boot = hvd::bootstrap;
using hvd::EnvMap;
using std::chrono::milliseconds;

namespace {

enum class Outcome { kStarts, kTimesOut, kFails };

class FakeMethod final : public boot::BootstrapMethod {
 public:
  FakeMethod(std::string name, bool applies, Outcome outcome, std::vector<std::string>& log)
      : name_(std::move(name)), applies_(applies), outcome_(outcome), log_(log) {}
  std::string_view name() const override { return name_; }
  boot::Probe probe(const EnvMap&) const override {
    log_.push_back("probe " + name_);
    return {applies_, name_ + (applies_ ? " fits" : " does not fit")};
  }
  boot::Bootstrapped start(const EnvMap&, const boot::BootstrapOptions&) override {
    log_.push_back("start " + name_);
    if (outcome_ == Outcome::kTimesOut) throw hvd::TimeoutError("nobody came");
    if (outcome_ == Outcome::kFails) throw hvd::BackendError("library broke");
    boot::Bootstrapped b;
    b.store = std::make_unique<boot::ExchangeStore>(std::make_unique<boot::SoloExchange>());
    return b;
  }

 private:
  std::string name_;
  bool applies_;
  Outcome outcome_;
  std::vector<std::string>& log_;
};

struct Spec {
  const char* name;
  bool applies;
  Outcome outcome;
};

boot::MethodChain fakes(const std::vector<Spec>& specs, std::vector<std::string>& log) {
  boot::MethodChain chain;
  for (const Spec& s : specs)
    chain.push_back(std::make_unique<FakeMethod>(s.name, s.applies, s.outcome, log));
  return chain;
}

std::string error_of(const boot::MethodChain& chain, const EnvMap& env) {
  try {
    boot::run_chain(chain, env, {});
  } catch (const hvd::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("chain: the first method that applies starts, and later ones are not even probed") {
  std::vector<std::string> log;
  const auto chain = fakes({{"a", false, Outcome::kStarts},
                            {"b", true, Outcome::kStarts},
                            {"c", true, Outcome::kStarts}},
                           log);
  const boot::Bootstrapped b = boot::run_chain(chain, {}, {});
  CHECK(b.world.method == "b");
  CHECK(log == std::vector<std::string>{"probe a", "probe b", "start b"});
}

TEST_CASE("chain: none applies: one line per method, then how to force one") {
  std::vector<std::string> log;
  const auto chain = fakes({{"a", false, Outcome::kStarts}, {"b", false, Outcome::kStarts}}, log);
  CHECK_THROWS_AS(boot::run_chain(chain, {}, {}), hvd::BootstrapError);
  CHECK(error_of(chain, {}) ==
        "bootstrap: no method applies to this process:\n"
        "  a: a does not fit\n"
        "  b: b does not fit\n"
        "Set HVD_BOOTSTRAP to a, b to force one.");
}

TEST_CASE("chain: a method that applies but fails stops the chain, keeping a timeout a timeout") {
  std::vector<std::string> log;
  const auto chain = fakes({{"a", false, Outcome::kStarts},
                            {"b", true, Outcome::kTimesOut},
                            {"c", true, Outcome::kStarts}},
                           log);
  CHECK_THROWS_AS(boot::run_chain(chain, {}, {}), hvd::TimeoutError);
  CHECK(error_of(chain, {}) ==
        "bootstrap: method 'b' applies but failed:\n"
        "  a: a does not fit\n"
        "  b: b fits, but failed: nobody came\n"
        "  c: not tried");
  CHECK(std::count(log.begin(), log.end(), "start c") == 0);

  const auto failing = fakes({{"x", true, Outcome::kFails}}, log);
  CHECK_THROWS_WITH_AS(boot::run_chain(failing, {}, {}),
                       doctest::Contains("x: x fits, but failed: library broke"),
                       hvd::BootstrapError);
}

TEST_CASE("chain: HVD_BOOTSTRAP forces a method, even one whose probe says no") {
  std::vector<std::string> log;
  const auto chain = fakes({{"a", true, Outcome::kStarts},
                            {"b", false, Outcome::kStarts},
                            {"c", false, Outcome::kFails}},
                           log);
  CHECK(boot::run_chain(chain, {{"HVD_BOOTSTRAP", "b"}}, {}).world.method == "b");
  CHECK(log == std::vector<std::string>{"probe b", "start b"});
  CHECK(boot::run_chain(chain, {{"HVD_BOOTSTRAP", "auto"}}, {}).world.method == "a");
  CHECK(error_of(chain, {{"HVD_BOOTSTRAP", "c"}}) ==
        "bootstrap: the forced method failed:\n"
        "  c: forced by HVD_BOOTSTRAP=c (its probe: c does not fit), but failed: library broke");
  CHECK_THROWS_WITH_AS(boot::run_chain(chain, {{"HVD_BOOTSTRAP", "mpich"}}, {}),
                       "HVD_BOOTSTRAP='mpich' is not one of: auto, a, b, c", hvd::ConfigError);
}

TEST_CASE("default chain: hvdrun, pmix, mpi, single, in that order") {
  const boot::MethodChain chain = boot::default_chain();
  REQUIRE(chain.size() == 4);
  CHECK(chain[0]->name() == "hvdrun");
  CHECK(chain[1]->name() == "pmix");
  CHECK(chain[2]->name() == "mpi");
  CHECK(chain[3]->name() == "single");
}

TEST_CASE("default chain: no launcher at all is a single process with a working store") {
  const boot::Bootstrapped b = boot::bootstrap({{"HOME", "/root"}}, {});
  CHECK(b.world.method == "single");
  CHECK(b.world.rank == 0);
  CHECK(b.world.size == 1);
  CHECK(b.world.local_size == 1);
  CHECK(b.world.cross_size == 1);
  CHECK_FALSE(b.world.hostname.empty());
  b.store->set("k", "v");
  b.store->barrier("b", milliseconds(100));
  CHECK(b.store->get("k", milliseconds(100)) == "v");
}

TEST_CASE("default chain: srun without PMIx or hvdrun is refused with every method's reason") {
  const EnvMap env = {{"SLURM_STEP_NUM_TASKS", "4"}, {"HOROVOD_RANK", "2"}, {"HOROVOD_SIZE", "4"}};
  const std::string text = error_of(boot::default_chain(), env);
  CHECK(text.find("bootstrap: no method applies to this process:\n  hvdrun: ") == 0);
  CHECK(text.find("  hvdrun: HOROVOD_RANK is set but HVD_STORE_ADDR is not") != std::string::npos);
  CHECK(text.find("\n  pmix: ") != std::string::npos);
  CHECK(text.find("PMIX_RANK not set") != std::string::npos);
  CHECK(text.find("\n  mpi: ") != std::string::npos);
  CHECK(text.find("\n  single: refused: HOROVOD_SIZE=4 says this process is one of 4") !=
        std::string::npos);
  CHECK(text.find("Set HVD_BOOTSTRAP to hvdrun, pmix, mpi, single to force one.") !=
        std::string::npos);
}

TEST_CASE("default chain: a method not built in says so, and forcing it fails clearly") {
  const boot::MethodChain chain = boot::default_chain();
  for (size_t i : {1, 2}) {  // pmix, mpi: present or not depending on the build
    const boot::Probe probe = chain[i]->probe({});
    CHECK_FALSE(probe.applies);
    if (probe.reason.find("not built in") == std::string::npos) continue;
    const std::string name(chain[i]->name());
    CHECK_THROWS_WITH_AS(boot::bootstrap({{"HVD_BOOTSTRAP", name}}, {}),
                         doctest::Contains("method is not built in: configure with -DHVD_WITH_"),
                         hvd::BootstrapError);
  }
}

TEST_CASE("default chain: forcing single overrides the evidence of other ranks") {
  const boot::Bootstrapped b =
      boot::bootstrap({{"HVD_BOOTSTRAP", "single"}, {"HOROVOD_SIZE", "4"}}, {});
  CHECK(b.world.method == "single");
  CHECK(b.world.size == 1);
}

TEST_CASE("bootstrap options: HVD_BOOTSTRAP_TIMEOUT in seconds") {
  CHECK(boot::bootstrap_options_from_env({}).timeout == std::chrono::seconds(120));
  CHECK(boot::bootstrap_options_from_env({{"HVD_BOOTSTRAP_TIMEOUT", "5"}}).timeout ==
        std::chrono::seconds(5));
  CHECK_THROWS_WITH_AS(boot::bootstrap_options_from_env({{"HVD_BOOTSTRAP_TIMEOUT", "5s"}}),
                       "HVD_BOOTSTRAP_TIMEOUT='5s' is not an integer", hvd::ConfigError);
  CHECK_THROWS_AS(boot::bootstrap_options_from_env({{"HVD_BOOTSTRAP_TIMEOUT", "0"}}),
                  hvd::ConfigError);
}

TEST_CASE("unavailable method: names the option and what the environment says") {
  const boot::UnavailableBootstrap pmix(
      "pmix", "HVD_WITH_PMIX", [](const EnvMap& env) { return boot::probe_pmix(env, false); });
  CHECK(pmix.name() == "pmix");
  CHECK_FALSE(pmix.applies({{"PMIX_RANK", "2"}}));
  CHECK(pmix.probe({{"PMIX_RANK", "2"}}).reason ==
        "not built in (configure with -DHVD_WITH_PMIX=ON), yet this process was started by a "
        "PMIx launcher (PMIX_RANK=2)");
  CHECK(pmix.probe({}).reason ==
        "not built in (configure with -DHVD_WITH_PMIX=ON); PMIX_RANK not set");
}
