// SPDX-License-Identifier: Apache-2.0
// The control channel over real transports: the binomial-tree gather for every root and rank
// count, and announced lengths past the bounds, which must be a BackendError naming the rank
// (before: a bad_alloc, or a multi-GiB allocation).
#include "core/transport_channel.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/ring/collectives.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "control/vote_fold.h"
#include "unit/runtime/common/typed_data.h"
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

namespace {

// Word i of rank r's AND part: every bit but one that depends on both.
uint64_t vote_word(int rank, size_t i) {
  return ~(uint64_t{1} << ((static_cast<size_t>(rank) * 5 + i) % 64));
}

}  // namespace

TEST_CASE("control channel: the vote ANDs its words and reduces a folded tensor as the ring's "
          "allreduce does, bit for bit, over tcp and shm, 1 to 8 ranks, every dtype and op") {
  constexpr size_t kAndWords = 4;
  constexpr size_t kDataWords = hvd::control::kFoldBytes / 8;
  for (const test::TransportKind kind : {test::TransportKind::kTcp, test::TransportKind::kShm}) {
    for (int n = 1; n <= 8; ++n) {
      const char* kind_text = test::kind_name(kind);
      CAPTURE(kind_text);
      CAPTURE(n);
      hvd::store::KvServer server("127.0.0.1", 0, test::test_secret());
      test::spawn(n, [&](int rank) {
        test::KvClientStore store(server.port(), n);
        std::unique_ptr<ring::Transport> owned =
            test::make_transport(kind, store, rank, n, test::kLiveness);
        ring::Transport& t = *owned;
        TransportChannel channel(std::move(owned));
        std::vector<uint64_t> want_and(kAndWords, ~uint64_t{0});
        for (int r = 0; r < n; ++r) {
          for (size_t i = 0; i < kAndWords; ++i) want_and[i] &= vote_word(r, i);
        }
        for (const hvd::DataType dt : test::kAllDtypes) {
          for (const hvd::ReduceOp op : test::kAllOps) {
            const size_t count = std::min<size_t>(5, hvd::control::kFoldBytes / hvd::dtype_size(dt));
            std::vector<char> reference = test::make_input(dt, op, rank, count);
            std::vector<uint64_t> words(kAndWords + kDataWords);
            for (size_t i = 0; i < kAndWords; ++i) words[i] = vote_word(rank, i);
            std::memcpy(words.data() + kAndWords, reference.data(), reference.size());
            channel.vote(words, kAndWords, hvd::control::VoteFold{count, dt, op});
            // The executor's path: the backend sums for an average, and divides afterwards.
            ring::allreduce(t, hvd::BufferView{reference.data(), count, dt, {}},
                            op == hvd::ReduceOp::kAverage ? hvd::ReduceOp::kSum : op);
            CHECK(std::vector<uint64_t>(words.begin(), words.begin() + kAndWords) == want_and);
            CHECK(std::memcmp(words.data() + kAndWords, reference.data(), reference.size()) == 0);
          }
        }
        // A rank that folds nothing: the AND part is still right (the rest is no result).
        std::vector<uint64_t> words(kAndWords + kDataWords, static_cast<uint64_t>(rank));
        for (size_t i = 0; i < kAndWords; ++i) words[i] = vote_word(rank, i);
        channel.vote(words, kAndWords,
                     rank == 0 ? hvd::control::VoteFold{}
                               : hvd::control::VoteFold{3, hvd::DataType::kInt64,
                                                        hvd::ReduceOp::kSum});
        CHECK(std::vector<uint64_t>(words.begin(), words.begin() + kAndWords) == want_and);
      });
    }
  }
}
