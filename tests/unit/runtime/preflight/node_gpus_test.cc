// SPDX-License-Identifier: Apache-2.0
#include "preflight/node_gpus.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

TEST_CASE("count_node_gpus: one folder per GPU the driver lists, -1 without the driver") {
  std::string scratch = (fs::temp_directory_path() / "hvd-node-gpus-XXXXXX").string();
  REQUIRE(mkdtemp(scratch.data()) != nullptr);
  const std::string gpus = scratch + "/gpus";
  CHECK(hvd::preflight::count_node_gpus(gpus) == -1);  // no such folder: no NVIDIA driver
  fs::create_directory(gpus);
  CHECK(hvd::preflight::count_node_gpus(gpus) == 0);
  for (const char* bus : {"0000:07:00.0", "0000:0f:00.0", "0000:47:00.0"}) {
    fs::create_directory(gpus + "/" + bus);
  }
  std::ofstream(gpus + "/README") << "not a GPU\n";  // only folders count
  CHECK(hvd::preflight::count_node_gpus(gpus) == 3);
  fs::remove_all(scratch);
}
