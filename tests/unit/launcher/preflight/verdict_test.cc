// SPDX-License-Identifier: Apache-2.0
#include "preflight/verdict.h"

#include <doctest/doctest.h>

#include "hvd/error.h"
#include "slurm/hostlist.h"
#include "support/json_mutations.h"

namespace preflight = hvd::launcher::preflight;
using nlohmann::json;

namespace {

json node(const std::string& host, double memory, double intra = -1) {
  json n = {{"host", host},
            {"ranks", {0, 1}},
            {"gpus", 0},
            {"gpu_model", "no CUDA"},
            {"missing_nics", json::array()},
            {"clock_offset_ms", 0.1},
            {"clock_rtt_ms", 1.0},
            {"memory_gbps", memory},
            {"intra", nullptr}};
  if (intra >= 0) n["intra"] = {{"latency_us", 20}, {"busbw_gbps", intra}, {"bytes", 4194304}};
  return n;
}

json link(const std::string& a, const std::string& b, double busbw, double latency = 50) {
  return {{"a", a}, {"b", b}, {"busbw_gbps", busbw}, {"latency_us", latency}, {"bytes", 4194304}};
}

json preflight_report(json nodes, json links) {
  return {{"tool", "hvd-preflight"},
          {"version", 1},
          {"seconds", 3.5},
          {"all", {{"latency_us", 80}, {"busbw_gbps", 1.0}, {"bytes", 4194304}}},
          {"nodes", std::move(nodes)},
          {"links", std::move(links)}};
}

// Four nodes in a ring: node3's two links are slow, the others' are not.
json ring_with_slow_node3() {
  return preflight_report(
      {node("n1", 10), node("n2", 10), node("n3", 10), node("n4", 10)},
      {link("n1", "n2", 1.0), link("n2", "n3", 0.3), link("n3", "n4", 0.3), link("n4", "n1", 1.0)});
}

}  // namespace

TEST_CASE("median: odd count takes the middle, even the mean of the two middle, none is 0") {
  CHECK(preflight::median({3, 1, 2}) == 2);
  CHECK(preflight::median({4, 1, 3, 2}) == doctest::Approx(2.5));
  CHECK(preflight::median({}) == 0);
}

TEST_CASE("judge: a uniform cluster flags nothing") {
  const auto v = preflight::judge(
      preflight_report({node("n1", 10, 5), node("n2", 10.5, 5.2), node("n3", 9.8, 4.9)},
                       {link("n1", "n2", 1), link("n2", "n3", 1.1), link("n3", "n1", 0.95)}),
      0.7, {});
  CHECK_FALSE(v.anything_flagged());
  CHECK(v.flagged_hosts.empty());
  CHECK(v.medians.memory_gbps == doctest::Approx(10));
  CHECK(v.medians.intra_busbw_gbps == doctest::Approx(5));
  CHECK(v.medians.link_busbw_gbps == doctest::Approx(1));
}

TEST_CASE("judge: the node whose links are all slow is named, its neighbours are not") {
  const auto v = preflight::judge(ring_with_slow_node3(), 0.7, {});
  REQUIRE(v.flagged_hosts == std::vector<std::string>{"n3"});
  CHECK(v.links[1].reasons.size() == 1);
  CHECK(v.links[0].reasons.empty());
  CHECK(v.anything_flagged());
  CHECK(hvd::launcher::slurm::compress_hostlist(v.flagged_hosts) == "n3");
}

TEST_CASE("judge: the threshold is adjustable, at 0.2 x median the slow links pass") {
  // Median of {1, 0.3, 0.3, 1} is 0.65; 0.3 >= 0.2 x 0.65.
  const auto v = preflight::judge(ring_with_slow_node3(), 0.2, {});
  CHECK_FALSE(v.anything_flagged());
}

TEST_CASE("judge: slow memory, slow shared memory, a missing NIC, no GPU, a wrong clock") {
  json nodes = {node("gpu01", 10, 5), node("gpu02", 4, 5), node("gpu03", 10, 1),
                node("gpu04", 10, 5), node("gpu05", 10, 5)};
  nodes[3]["missing_nics"] = {"hsn1"};
  nodes[4]["clock_offset_ms"] = 900.0;
  const auto v = preflight::judge(preflight_report(nodes, json::array()), 0.7, {});
  CHECK(v.flagged_hosts == std::vector<std::string>{"gpu02", "gpu03", "gpu04", "gpu05"});
  CHECK(v.nodes[1].reasons.at(0).find("memory") == 0);
  CHECK(v.nodes[2].reasons.at(0).find("intra-node busbw") == 0);
  CHECK(v.nodes[3].reasons.at(0) == "NIC hsn1 missing");
  CHECK(v.nodes[4].reasons.at(0).find("clock off by 900.0 ms") == 0);
  CHECK(hvd::launcher::slurm::compress_hostlist(v.flagged_hosts) == "gpu[02-05]");

  // With a profile that has 4 GPUs per node, a node that sees none is flagged too.
  const auto with_gpus = preflight::judge(
      preflight_report(json::array({node("a1", 10)}), json::array()), 0.7, {4, ""});
  CHECK(with_gpus.nodes[0].reasons.at(0) == "no GPU visible (profile: 4 per node)");
  json no_driver = node("a1", 10);
  no_driver["gpu_model"] = "CUDA driver version is insufficient for CUDA runtime version";
  const auto why =
      preflight::judge(preflight_report(json::array({no_driver}), json::array()), 0.7, {4, ""});
  CHECK(why.nodes[0].reasons.at(0) ==
        "no GPU visible (profile: 4 per node; CUDA driver version is insufficient for CUDA "
        "runtime version)");
}

TEST_CASE("judge: one slow link between two nodes names the link, not a node") {
  const auto v = preflight::judge(preflight_report({node("n1", 10), node("n2", 10)},
                                                   {link("n1", "n2", 1), link("n1", "n2", 0.1)}),
                                  0.7, {});
  CHECK(v.flagged_hosts.empty());
  CHECK(v.anything_flagged());
  // A slow latency alone flags a link: 300 us > median 175 us / 0.7.
  const auto lat =
      preflight::judge(preflight_report({node("n1", 10), node("n2", 10)},
                                        {link("n1", "n2", 1, 50), link("n1", "n2", 1, 300)}),
                       0.7, {});
  CHECK(lat.links[1].reasons.at(0).find("latency 300.0 us") == 0);
}

TEST_CASE("judge: refuses what is not a preflight report, and a bad threshold") {
  CHECK_THROWS_AS(preflight::judge(json{{"tool", "hvd-bench"}}, 0.7, {}), hvd::ConfigError);
  CHECK_THROWS_AS(preflight::judge(json{{"tool", "hvd-preflight"}}, 0.7, {}), hvd::ConfigError);
  CHECK_THROWS_AS(preflight::judge(ring_with_slow_node3(), 0, {}), hvd::UsageError);
  CHECK_THROWS_AS(preflight::judge(ring_with_slow_node3(), 1.5, {}), hvd::UsageError);
}

TEST_CASE("to_json: flags and reasons for every node and link") {
  const json j = preflight::to_json(preflight::judge(ring_with_slow_node3(), 0.7, {}));
  CHECK(j["tool"] == "hvdrun preflight");
  CHECK(j["flagged_hosts"] == json{"n3"});
  CHECK(j["nodes"][2]["flagged"] == true);
  CHECK(j["links"][0]["flagged"] == false);
  CHECK(j["links"][1]["flagged"] == true);
}

TEST_CASE(
    "judge: a GPU that is not the profile's model flags its node, case and vendor prefix aside") {
  json a100 = node("g1", 10);
  a100["gpus"] = 2;
  a100["gpu_model"] = "NVIDIA A100-SXM4-40GB";
  a100["gpu_ids"] = {"00000000:07:00.0", "00000000:0F:00.0"};
  json v100 = a100;
  v100["host"] = "g2";
  v100["gpu_model"] = "Tesla V100-SXM2-16GB";
  const auto v = preflight::judge(preflight_report({a100, v100}, json::array()), 0.7, {4, "a100"});
  CHECK(v.nodes[0].reasons.empty());
  REQUIRE(v.nodes[1].reasons.size() == 1);
  CHECK(v.nodes[1].reasons[0] == "GPU model 'Tesla V100-SXM2-16GB', profile: 'a100'");
  CHECK(v.flagged_hosts == std::vector<std::string>{"g2"});
  // No model in the profile: any model passes.
  CHECK_FALSE(preflight::judge(preflight_report({a100, v100}, json::array()), 0.7, {4, ""})
                  .anything_flagged());
}

TEST_CASE("judge: two ranks of a node bound to one GPU flag it, naming the ranks and the GPU") {
  json shared = node("g1", 10);
  shared["ranks"] = {4, 5, 6};
  shared["gpus"] = 3;
  shared["gpu_model"] = "NVIDIA H100";
  shared["gpu_ids"] = {"0000:07:00.0", "0000:0f:00.0", "0000:07:00.0"};
  json distinct = shared;
  distinct["host"] = "g2";
  distinct["gpu_ids"] = {"0000:07:00.0", "0000:0f:00.0", "0000:47:00.0"};
  json none = node("g3", 10);  // no GPUs: empty ids are never "shared"
  none["gpu_ids"] = {"", ""};
  const auto v =
      preflight::judge(preflight_report({shared, distinct, none}, json::array()), 0.7, {});
  REQUIRE(v.nodes[0].reasons.size() == 1);
  CHECK(v.nodes[0].reasons[0] == "ranks 4 and 6 share GPU 0000:07:00.0");
  CHECK(v.nodes[1].reasons.empty());
  CHECK(v.nodes[2].reasons.empty());
  // The verdict's JSON keeps each rank's GPU for the report.
  CHECK(preflight::to_json(v)["nodes"][0]["gpu_ids"].size() == 3);
}

TEST_CASE("judge: the NVIDIA driver's GPU count against the profile's, unknown is not judged") {
  json lost = node("g1", 10);
  lost["gpus"] = 3;
  lost["gpu_model"] = "NVIDIA A100-SXM4-40GB";
  lost["node_gpus"] = 3;  // one of four fell off the bus
  json whole = lost;
  whole["host"] = "g2";
  whole["node_gpus"] = 4;
  json no_driver_info = lost;  // an older report, or no /proc/driver/nvidia
  no_driver_info["host"] = "g3";
  no_driver_info.erase("node_gpus");
  const auto v = preflight::judge(preflight_report({lost, whole, no_driver_info}, json::array()),
                                  0.7, {4, ""});
  REQUIRE(v.nodes[0].reasons.size() == 1);
  CHECK(v.nodes[0].reasons[0] == "3 GPUs on the node (NVIDIA driver), profile: 4");
  CHECK(v.nodes[1].reasons.empty());
  CHECK(v.nodes[2].reasons.empty());
  CHECK(v.flagged_hosts == std::vector<std::string>{"g1"});
  // A profile without GPUs judges no count.
  CHECK_FALSE(preflight::judge(preflight_report(json::array({lost}), json::array()), 0.7, {})
                  .anything_flagged());
}

// Every value of a report replaced with each other JSON type, and numbers with huge ones
// (support/json_mutations.h): judge() works or throws ConfigError, never nlohmann's type_error
// (which hvdrun reports as an internal error, exit 70). The fields it reads are named by their
// JSON pointer; "bytes" and "version" it does not read.
TEST_CASE("judge: every mistyped field of a report is a config error naming the field") {
  // json::array(): a braced list of one json is an array to gcc but a copy to clang.
  const json valid = preflight_report(json::array({node("n1", 10, 5), node("n2", 10)}),
                                      json::array({link("n1", "n2", 1.0)}));
  REQUIRE_NOTHROW(preflight::judge(valid, 0.7, {}));
  for (const hvd::test::JsonMutation& m : hvd::test::json_mutations(valid)) {
    CAPTURE(m.pointer);
    CAPTURE(m.what);
    const bool read = m.pointer != "/version" && m.pointer.find("/bytes") == std::string::npos;
    const bool must_fail = read && m.what != "null";
    try {
      preflight::judge(m.doc, 0.7, {});
      CHECK_FALSE(must_fail);
    } catch (const hvd::ConfigError& e) {
      const std::string what = e.what();
      if (read && m.what != "null") CHECK_MESSAGE(what.find(m.pointer) != std::string::npos, what);
    }
  }
}
