// SPDX-License-Identifier: Apache-2.0
#include "slurm/route_interface.h"

#include <doctest/doctest.h>

namespace slurm = hvd::launcher::slurm;

TEST_CASE("route_interface: loopback is reached through lo, nothing for a host that is no host") {
  CHECK(slurm::interface_towards("127.0.0.1") == std::optional<std::string>("lo"));
  CHECK_FALSE(slurm::interface_towards("").has_value());
}
