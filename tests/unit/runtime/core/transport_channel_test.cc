// SPDX-License-Identifier: Apache-2.0
// The control channel over real transports: the binomial-tree gather for every root and rank
// count, and announced lengths past the bounds, which must be a BackendError naming the rank
// (before: a bad_alloc, or a multi-GiB allocation).
#include "core/transport_channel.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/ring/collectives.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "unit/runtime/ring/ring_world.h"

using hvd::str_cat;
using hvd::core::TransportChannel;
namespace test = hvd::test;
namespace ring = hvd::backends::ring;

namespace {

// Runs fn(rank, transport) on n rank threads over TCP.
template <typename Fn>
void run_ranks(int n, Fn&& fn) {
  hvd::store::KvServer server("127.0.0.1", 0, test::test_secret());
  test::spawn(n, [&](int rank) {
    test::KvClientStore store(server.port(), n);
    fn(rank, test::make_transport(test::TransportKind::kTcp, store, rank, n, test::kLiveness));
  });
}

std::string message_of(int rank) {
  return std::string(static_cast<size_t>(rank % 4) * 3, 'a' + rank % 26);
}

}  // namespace

TEST_CASE("control channel: gather and broadcast over the tree, every root, 1 to 9 ranks") {
  for (int n = 1; n <= 9; ++n) {
    CAPTURE(n);
    run_ranks(n, [&](int rank, std::unique_ptr<ring::Transport> t) {
      TransportChannel channel(std::move(t));
      for (int root = 0; root < n; ++root) {
        const std::vector<std::string> all = channel.gather(message_of(rank), root);
        if (rank == root) {
          REQUIRE(all.size() == static_cast<size_t>(n));
          for (int r = 0; r < n; ++r) CHECK(all[static_cast<size_t>(r)] == message_of(r));
        } else {
          CHECK(all.empty());
        }
        CHECK(channel.broadcast(str_cat("from ", root), root) == str_cat("from ", root));
      }
    });
  }
}

TEST_CASE("control channel: a gathered length past the bound is a BackendError naming the rank") {
  std::string error;
  run_ranks(2, [&](int rank, std::unique_ptr<ring::Transport> t) {
    if (rank == 1) {
      const uint64_t huge = uint64_t{1} << 60;  // what a corrupt stream could announce
      t->send(0, &huge, sizeof(huge));
      return;
    }
    TransportChannel channel(std::move(t));
    try {
      channel.gather("mine", 0);
    } catch (const hvd::BackendError& e) {
      error = e.what();
    }
  });
  CHECK(error.find("rank 1") != std::string::npos);
}

TEST_CASE("control channel: a broadcast length past the bound is a BackendError") {
  std::string error;
  run_ranks(2, [&](int rank, std::unique_ptr<ring::Transport> t) {
    if (rank == 0) {
      uint64_t huge = uint64_t{1} << 62;
      ring::broadcast(*t, hvd::BufferView{&huge, 1, hvd::DataType::kInt64, {}}, 0);
      return;
    }
    TransportChannel channel(std::move(t));
    try {
      channel.broadcast("", 0);
    } catch (const hvd::BackendError& e) {
      error = e.what();
    }
  });
  CHECK(error.find("rank 0") != std::string::npos);
}
