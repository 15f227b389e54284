// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "hvd/error.h"
#include "slurm/gpu_ids.h"

namespace slurm = hvd::launcher::slurm;
using Ids = std::vector<int>;

namespace {
// The message parse_gpu_ids() throws for `text`, or "" if it accepts it.
std::string parse_error(const std::string& text) {
  try {
    slurm::parse_gpu_ids(text);
  } catch (const hvd::SchedulerError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("gpu_ids: lists, ranges and their mix") {
  CHECK(slurm::parse_gpu_ids("0,1,2,3") == Ids{0, 1, 2, 3});
  CHECK(slurm::parse_gpu_ids("0-3") == Ids{0, 1, 2, 3});
  CHECK(slurm::parse_gpu_ids("0-1,4") == Ids{0, 1, 4});
  CHECK(slurm::parse_gpu_ids("5") == Ids{5});
  CHECK(slurm::parse_gpu_ids("2-2") == Ids{2});
  CHECK(slurm::parse_gpu_ids("7,65535") == Ids{7, 65535});
  CHECK(slurm::parse_gpu_ids(" 0,1\n") == Ids{0, 1});
}

TEST_CASE("gpu_ids: the written order is kept") {
  CHECK(slurm::parse_gpu_ids("3,2,1,0") == Ids{3, 2, 1, 0});
  CHECK(slurm::parse_gpu_ids("4-5,0-1") == Ids{4, 5, 0, 1});
}

TEST_CASE("gpu_ids: blank text is no GPUs") {
  CHECK(slurm::parse_gpu_ids("").empty());
  CHECK(slurm::parse_gpu_ids("  ").empty());
}

TEST_CASE("gpu_ids: malformed text is a SchedulerError quoting it") {
  for (const std::string bad :
       {"a", "GPU-8f2c1e5a-0000", "MIG-1", "-1", "1-", "3-1", "0,,1", "0,", ",0", "1-2-3", "+1",
        "0 ,1", "0x1", "65536", "99999999999", "0-70000", "NoDevFiles"}) {
    CAPTURE(bad);
    const std::string message = parse_error(bad);
    CHECK(message.find("GPU list '" + bad + "'") != std::string::npos);
    CHECK(message.find("is not a GPU index") != std::string::npos);
  }
  CHECK(parse_error("0,1,0").find("GPU 0 is listed twice") != std::string::npos);
  CHECK(parse_error("0-3,2").find("GPU 2 is listed twice") != std::string::npos);
  CHECK_THROWS_AS(slurm::parse_gpu_ids("x"), hvd::SchedulerError);
}
