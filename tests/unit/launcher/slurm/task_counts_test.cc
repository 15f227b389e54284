// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "hvd/error.h"
#include "slurm/task_counts.h"

namespace slurm = hvd::launcher::slurm;
using Counts = std::vector<int>;

namespace {
// The message expand_task_counts() throws for `text`, or "" if it accepts it.
std::string task_expand_error(const std::string& text) {
  try {
    slurm::expand_task_counts(text);
  } catch (const hvd::SchedulerError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("task_counts: expands c(x#) runs") {
  CHECK(slurm::expand_task_counts("2(x3),1") == Counts{2, 2, 2, 1});
  CHECK(slurm::expand_task_counts("4") == Counts{4});
  CHECK(slurm::expand_task_counts("72(x2),36") == Counts{72, 72, 36});
  CHECK(slurm::expand_task_counts("4(x2),2") == Counts{4, 4, 2});
  CHECK(slurm::expand_task_counts("1,2,3") == Counts{1, 2, 3});
  CHECK(slurm::expand_task_counts("3(x1)") == Counts{3});
  CHECK(slurm::expand_task_counts("1(x2),1(x2)") == Counts{1, 1, 1, 1});
  CHECK(slurm::expand_task_counts("0") == Counts{0});
  CHECK(slurm::expand_task_counts(" 2(x2)\n") == Counts{2, 2});
  CHECK(slurm::expand_task_counts("").empty());
  CHECK(slurm::expand_task_counts(" ").empty());
  CHECK(slurm::expand_task_counts("1(x65536)").size() == 65536);
}

TEST_CASE("task_counts: malformed text is a SchedulerError quoting it") {
  for (const std::string bad :
       {"x",     "2(x)",   "(x2)",     "2(3)",   "2(x3",        "2x3",
        "2(x0)", "2(x-1)", "-1",       "+1",     "1,,2",        "1,",
        ",1",    "2 (x3)", "2(x3) ,1", "2(x 3)", "99999999999", "1(x99999999999)",
        "1.5",   "2(x3)x"}) {
    CAPTURE(bad);
    const std::string message = task_expand_error(bad);
    CHECK(message.find("per-node count list '" + bad + "'") != std::string::npos);
    CHECK(message.find("is not c or c(x#)") != std::string::npos);
  }
  CHECK(task_expand_error("1(x65537)").find("more than 65536 entries") != std::string::npos);
  CHECK(task_expand_error("1(x65536),1").find("more than 65536 entries") != std::string::npos);
  CHECK_THROWS_AS(slurm::expand_task_counts("2(x)"), hvd::SchedulerError);
}

TEST_CASE("task_counts: compress writes runs and inverts expand") {
  CHECK(slurm::compress_task_counts({}) == "");
  CHECK(slurm::compress_task_counts({4}) == "4");
  CHECK(slurm::compress_task_counts({2, 2, 2, 1}) == "2(x3),1");
  CHECK(slurm::compress_task_counts({72, 72, 36}) == "72(x2),36");
  CHECK(slurm::compress_task_counts({1, 2, 1}) == "1,2,1");
  CHECK(slurm::compress_task_counts({0, 0}) == "0(x2)");
  CHECK_THROWS_AS(slurm::compress_task_counts({1, -1}), hvd::InternalError);
  for (const std::string text : {"2(x3),1", "4", "72(x2),36", "1,2,3", "8(x16)", "1,1(x3),2"}) {
    CAPTURE(text);
    const Counts counts = slurm::expand_task_counts(text);
    CHECK(slurm::expand_task_counts(slurm::compress_task_counts(counts)) == counts);
  }
}
