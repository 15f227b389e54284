// SPDX-License-Identifier: Apache-2.0
#include "report.h"

#include <doctest/doctest.h>

#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "temp_dir.h"

using hvd::train::RunReport;

TEST_CASE("report: mean and Horovod's 1.96 x population standard deviation") {
  const hvd::train::Throughput t = hvd::train::summarize({100, 110, 90, 100});
  CHECK(t.mean == doctest::Approx(100));
  CHECK(t.ci == doctest::Approx(1.96 * std::sqrt(50.0)));
}

TEST_CASE("report: lines in the form ReFrame's hpctestlib and Horovod's users parse") {
  RunReport r;
  r.ranks = 2;
  r.per_rank = {1234.56, 7.0};
  const auto lines = hvd::train::summary_lines(r);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "Img/sec per CPU: 1234.6 +-7.0");
  CHECK(lines[1] == "Total img/sec on 2 CPU(s): 2469.1 +-14.0");
  // hpctestlib's PyTorch/Horovod benchmark checks.
  CHECK(std::regex_search(lines[1], std::regex(R"(Total img/sec on 2 .PU\(s\):\s+(\S+))")));
  CHECK(hvd::train::iteration_line(3, 99.94, r) == "Iter #3: 99.9 img/sec per CPU");
  SUBCASE("GPUs and a baseline") {
    r.gpu = true;
    r.baseline = 1300;
    const auto gpu = hvd::train::summary_lines(r);
    CHECK(gpu[1] == "Total img/sec on 2 GPU(s): 2469.1 +-14.0");
    REQUIRE(gpu.size() == 3);
    CHECK(gpu[2].find("0.950") != std::string::npos);
  }
}

TEST_CASE("report: JSON in the shared hvd-train format") {
  hvd::train::testing::TempDir dir;
  RunReport r;
  r.ranks = 2;
  r.widths = {784, 16, 10};
  r.parameters = 12730;
  r.batch_per_rank = 64;
  r.per_rank = {10, 1};
  r.epochs.push_back({1, 0.5, 0.8, 0.82});
  hvd::train::write_json(dir.file("r.json"), r);
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir.file("r.json")));
  CHECK(j["tool"] == "hvd-train");
  CHECK(j["device"] == "cpu");
  CHECK(j["layers"] == nlohmann::json({784, 16, 10}));
  CHECK(j["img_per_sec_total"]["mean"] == 20.0);
  CHECK(j["scaling_efficiency"].is_null());
  CHECK(j["epochs"][0]["test_accuracy"] == 0.82);
}
