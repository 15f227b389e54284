// SPDX-License-Identifier: Apache-2.0
#include "why/rank_report.h"

#include <doctest/doctest.h>

#include "hvd/error.h"

namespace why = hvd::launcher::why;

TEST_CASE("rank report: a rank's answer, its queue and where its main thread is") {
  const std::string answer = R"({"rank": 2, "pid": 42, "host": "n1",
    "libhvd": {"pending": [{"name": "grad.1", "op": "allreduce", "process_set": 0, "seq": 9,
                            "age_s": 3.5}],
               "last_done": {"name": "grad.0", "op": "allreduce", "process_set": 0, "seq": 8,
                             "age_s": 3.6},
               "submitted": 9, "completed": 8, "quiet_s": 3.5},
    "python_stack": "Current thread 0x1 (most recent call first):\n  File \"/u/t.py\", line 7 in step\n  File \"/u/t.py\", line 9 in <module>\n"})";
  const why::RankReport r = why::parse_rank_answer(2, answer);
  CHECK(r.condition == why::RankCondition::kAnswered);
  CHECK(r.pid == 42);
  CHECK(r.host == "n1");
  REQUIRE(r.pending.size() == 1);
  CHECK(r.pending[0].seq == 9);
  REQUIRE(r.last_done);
  CHECK(r.last_done->name == "grad.0");
  REQUIRE(r.where);
  CHECK(r.where->label() == "`step` (t.py:7)");
  CHECK(why::to_json(r)["where"]["function"] == "step");
}

TEST_CASE("rank report: an answer of the wrong shape is an error naming the rank and field") {
  CHECK_THROWS_WITH_AS(why::parse_rank_answer(3, "[1]"),
                       "rank 3's answer to hvdrun why is not a JSON object", hvd::ConfigError);
  CHECK_THROWS_WITH_AS(why::parse_rank_answer(3, R"({"rank": 4, "pid": 1})"),
                       "rank 3's answer to hvdrun why names another rank", hvd::ConfigError);
  CHECK_THROWS_WITH_AS(
      why::parse_rank_answer(3, R"({"rank": 3, "pid": 1, "libhvd": {"pending": 5}})"),
      doctest::Contains("rank 3"), hvd::ConfigError);
  CHECK_THROWS_AS(why::parse_rank_answer(3, R"({"rank": 3, "pid": "x"})"), hvd::ConfigError);
}

TEST_CASE("rank report: hvdrun why-node answers for a rank that is stopped or gone") {
  for (const char* condition : {"stopped", "gone"}) {
    const why::RankReport r = why::parse_rank_answer(
        3, std::string(R"({"rank": 3, "pid": 77, "host": "node2", "condition": ")") + condition +
               "\"}");
    CHECK(why::condition_name(r.condition) == std::string(condition));
    CHECK(r.host == "node2");
    CHECK_FALSE(r.has_libhvd);
  }
  CHECK_THROWS_AS(why::parse_rank_answer(3, R"({"rank": 3, "pid": 77, "condition": "answered"})"),
                  hvd::ConfigError);
  CHECK_THROWS_AS(why::parse_rank_answer(3, R"({"rank": 3, "pid": 77, "condition": 1})"),
                  hvd::ConfigError);
}
