// SPDX-License-Identifier: Apache-2.0
// Copying chunks of many runs into and out of the shm ring (gather_copy.h): both gather methods
// move the same bytes for every alignment and length, and the choosers keep the way measured
// faster while still trying the other. Durations here are made up; nothing is timed.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hvd/str_cat.h"
#include "transport/shm/gather_copy.h"

namespace ring = hvd::backends::ring;
using ring::GatherMethod;
using std::chrono::nanoseconds;

namespace {

std::vector<char> pattern(size_t n, int seed) {
  std::vector<char> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<char>((i * 131 + static_cast<size_t>(seed)) % 251);
  return v;
}

// Picks `rounds` times, recording `memcpy_ns` or `stream_ns` per byte for whichever was
// picked; returns how often each was picked.
std::pair<int, int> run_chooser(ring::GatherChooser& c, int rounds, double memcpy_ns,
                                double stream_ns) {
  int m = 0, s = 0;
  for (int i = 0; i < rounds; ++i) {
    const GatherMethod pick = c.pick();
    const double per_byte = pick == GatherMethod::kMemcpy ? memcpy_ns : stream_ns;
    c.record(pick, 1000, nanoseconds(static_cast<int64_t>(per_byte * 1000)));
    (pick == GatherMethod::kMemcpy ? m : s) += 1;
  }
  return {m, s};
}

}  // namespace

TEST_CASE("gather copy: streaming stores copy every byte, at any alignment and length") {
  const std::vector<char> src = pattern(1200, 7);
  for (size_t dst_off = 0; dst_off < 64; dst_off += 5) {
    for (size_t src_off = 0; src_off < 64; src_off += 9) {
      for (const size_t n : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{127},
                             size_t{128}, size_t{200}, size_t{1000}}) {
        std::vector<char> dst(1200, 'x');
        ring::stream_copy(dst.data() + dst_off, src.data() + src_off, n);
        ring::stream_fence();
        CAPTURE(dst_off);
        CAPTURE(src_off);
        CAPTURE(n);
        CHECK(std::string(dst.data() + dst_off, n) == std::string(src.data() + src_off, n));
        // Nothing written around it.
        CHECK(std::string(dst.data(), dst_off) == std::string(dst_off, 'x'));
        CHECK(std::string(dst.data() + dst_off + n, dst.size() - dst_off - n) ==
              std::string(dst.size() - dst_off - n, 'x'));
      }
    }
  }
}

TEST_CASE("gather copy: both methods gather runs of odd lengths and addresses in order") {
  std::vector<std::vector<char>> tensors;
  std::vector<ring::Piece> pieces;
  std::string expected;
  for (const size_t len : {size_t{3}, size_t{0}, size_t{64}, size_t{4096}, size_t{100}, size_t{1},
                           size_t{4099}, size_t{0}}) {
    tensors.push_back(pattern(len + 1, static_cast<int>(tensors.size())));
    pieces.push_back({tensors.back().data() + 1, len});  // off the allocation's alignment
    expected.append(tensors.back().data() + 1, len);
  }
  for (const GatherMethod method : {GatherMethod::kMemcpy, GatherMethod::kStream}) {
    std::vector<char> ring_bytes(expected.size() + 64, 'x');
    ring::PieceCursor from(ring::PieceSpan{pieces.data(), pieces.size()});
    // Two chunks, the first ending inside a run, as the ring cuts a message.
    const size_t first = 4000;
    ring::gather_into(ring_bytes.data() + 64, from, first, method);
    ring::gather_into(ring_bytes.data() + 64 + first, from, expected.size() - first, method);
    ring::stream_fence();
    CHECK(std::string(ring_bytes.data() + 64, expected.size()) == expected);
    CHECK(from.run(1).second == 0);  // everything taken
  }
}

TEST_CASE("gather chooser: measures each method first, then keeps the faster") {
  ring::GatherChooser c;
  CHECK(c.pick() == GatherMethod::kMemcpy);
  c.record(GatherMethod::kMemcpy, 1000, nanoseconds(1000));
  CHECK(c.pick() == GatherMethod::kStream);
  c.record(GatherMethod::kStream, 1000, nanoseconds(3000));
  // Memcpy is faster: it is picked, except for one exploring pick in every kExplore.
  const std::pair<int, int> picked = run_chooser(c, 10 * ring::GatherChooser::kExplore, 1.0, 3.0);
  CHECK(picked.second == 10);
  CHECK(picked.first == 10 * static_cast<int>(ring::GatherChooser::kExplore) - 10);
}

TEST_CASE("gather chooser: follows the machine when the faster method changes") {
  ring::GatherChooser c;
  run_chooser(c, 64, 1.0, 3.0);  // memcpy faster
  CHECK(c.pick() == GatherMethod::kMemcpy);
  // Now the cores share no cache: memcpy of many runs slows down, streaming does not.
  run_chooser(c, 20 * ring::GatherChooser::kExplore, 4.0, 2.5);
  const std::pair<int, int> picked = run_chooser(c, 4 * ring::GatherChooser::kExplore, 4.0, 2.5);
  CHECK(picked.first == 4);  // the exploring picks
  CHECK(picked.second == 4 * static_cast<int>(ring::GatherChooser::kExplore) - 4);
}

TEST_CASE("gather chooser: one slow copy does not flip the choice") {
  ring::GatherChooser c;
  run_chooser(c, 64, 1.0, 1.5);
  // Preempted in the middle of a memcpy: 1000x its usual time, once.
  CHECK(c.pick() != GatherMethod::kStream);  // (pick 65 is not an exploring one)
  c.record(GatherMethod::kMemcpy, 1000, nanoseconds(1000 * 1000));
  const std::pair<int, int> picked = run_chooser(c, 8, 1.0, 1.5);
  CHECK(picked.first == 8);
  CHECK(picked.second == 0);
}

TEST_CASE("gather chooser: a slow first copy (a cold ring) does not hide the faster method") {
  ring::GatherChooser c;
  CHECK(c.pick() == GatherMethod::kMemcpy);
  c.record(GatherMethod::kMemcpy, 1000, nanoseconds(1000 * 1000));  // page faults
  run_chooser(c, 2 * ring::GatherChooser::kExplore, 1.0, 3.0);
  // One exploring memcpy at its usual cost was enough to win it back.
  const std::pair<int, int> picked = run_chooser(c, ring::GatherChooser::kExplore, 1.0, 3.0);
  CHECK(picked.first == static_cast<int>(ring::GatherChooser::kExplore) - 1);
  CHECK(picked.second == 1);
}

TEST_CASE("scatter chooser: the same choice between the plain copy and the prefetching one") {
  ring::ScatterChooser c;
  CHECK(c.pick() == ring::ScatterMethod::kPlain);
  c.record(ring::ScatterMethod::kPlain, 1000, nanoseconds(3000));
  CHECK(c.pick() == ring::ScatterMethod::kPrefetch);
  c.record(ring::ScatterMethod::kPrefetch, 1000, nanoseconds(2000));
  CHECK(c.pick() == ring::ScatterMethod::kPrefetch);
  c.record(ring::ScatterMethod::kPlain, 1000, nanoseconds(1000));  // an exploring copy, faster
  CHECK(c.pick() == ring::ScatterMethod::kPlain);
}

TEST_CASE("gather chooser: an empty copy measures nothing") {
  ring::GatherChooser c;
  c.record(GatherMethod::kMemcpy, 0, nanoseconds(5));
  CHECK(c.pick() == GatherMethod::kMemcpy);
}
