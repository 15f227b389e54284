// SPDX-License-Identifier: Apache-2.0
// NCCL's unique id from rank 0 over the control channel's broadcast (a fake here): no NCCL
// call, no GPU.
#include "backends/nccl/nccl_unique_id.h"

#include <doctest/doctest.h>

#include <string>

#include "hvd/error.h"

namespace nccl = hvd::backends::nccl;

TEST_CASE("nccl unique id: rank 0's id reaches every rank through the broadcast") {
  ncclUniqueId made{};
  for (size_t i = 0; i < sizeof(made.internal); ++i) made.internal[i] = static_cast<char>(i * 7);
  std::string on_the_wire;
  const auto broadcast_from_rank0 = [&](const std::string& bytes) {
    if (!bytes.empty()) on_the_wire = bytes;  // rank 0 sends
    return on_the_wire;
  };
  const ncclUniqueId at0 = nccl::share_unique_id(broadcast_from_rank0, 0, [&] { return made; });
  bool made_elsewhere = false;
  const ncclUniqueId at1 = nccl::share_unique_id(broadcast_from_rank0, 1, [&] {
    made_elsewhere = true;
    return ncclUniqueId{};
  });
  CHECK(std::string(at0.internal, sizeof(at0.internal)) ==
        std::string(made.internal, sizeof(made.internal)));
  CHECK(std::string(at1.internal, sizeof(at1.internal)) ==
        std::string(made.internal, sizeof(made.internal)));
  CHECK(!made_elsewhere);
}

TEST_CASE("nccl unique id: a value of another size is a BootstrapError") {
  const auto short_value = [](const std::string&) { return std::string(17, 'x'); };
  CHECK_THROWS_AS(nccl::share_unique_id(short_value, 1, [] { return ncclUniqueId{}; }),
                  hvd::BootstrapError);
}
