// SPDX-License-Identifier: Apache-2.0
// process_set_probe: libhvd's process sets end to end, one process per rank (hvdrun's shm and
// TCP rings, or mpirun with HVD_BACKEND=mpi). Every rank adds the even and the odd ranks as sets
// and runs every collective in its own set with exact integer checks; then overlapping sets and
// the global set at the same time, with the same tensor name in several sets; then the errors:
// a duplicate set, a rank outside the world, a set this rank is not in, a removed set, removing
// set 0, a dtype mismatch inside a set (and the set still works afterwards). Rank 0 prints one
// summary line; exit 1 when a check failed, 3 when an operation expected to work failed.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "hvd/hvd.h"
#include "probe_check.h"

namespace {

hvd::TensorView view(std::vector<int64_t>& v, std::vector<int64_t> shape) {
  return hvd::TensorView{v.data(), hvd::DataType::kInt64, std::move(shape), {}};
}

std::vector<int> ranks_where(int size, bool (*pick)(int)) {
  std::vector<int> out;
  for (int r = 0; r < size; ++r) {
    if (pick(r)) out.push_back(r);
  }
  return out;
}

// Every collective in set `id` of `ranks`, which this rank is in.
void collectives_in(int id, const std::vector<int>& ranks, const std::string& tag) {
  const int me = hvd::rank();
  const int n = static_cast<int>(ranks.size());
  const int pos = hvd::process_set_rank(id);
  expect(pos >= 0 && ranks[static_cast<size_t>(pos)] == me, tag + ": process_set_rank");
  expect(hvd::process_set_ranks(id) == ranks, tag + ": process_set_ranks");

  // Allreduce (sum and average) of the global ranks + 1: exact.
  const int64_t want_sum = std::accumulate(ranks.begin(), ranks.end(), int64_t{0}) + n;
  std::vector<int64_t> x(7, me + 1), sum(7);
  must(hvd::allreduce_async("x", view(x, {7}), view(sum, {7}), hvd::ReduceOp::kSum, 1.0, 1.0, id)
           .wait(),
       tag + " allreduce");
  expect(std::all_of(sum.begin(), sum.end(), [&](int64_t v) { return v == want_sum; }),
         tag + ": allreduce sum " + std::to_string(sum[0]) + " != " + std::to_string(want_sum));

  // Allgather with uneven rows: set rank p gives p + 1 rows of its global rank.
  std::vector<int64_t> rows(static_cast<size_t>(pos + 1), me);
  hvd::Handle g = hvd::allgather_async("g", view(rows, {pos + 1}), id);
  must(g.wait(), tag + " allgather");
  std::vector<int64_t> want_rows;
  for (int p = 0; p < n; ++p) want_rows.insert(want_rows.end(), static_cast<size_t>(p + 1), ranks[static_cast<size_t>(p)]);
  const auto* got = reinterpret_cast<const int64_t*>(g.output().data());
  expect(g.output().size() == want_rows.size() * sizeof(int64_t) &&
             std::equal(want_rows.begin(), want_rows.end(), got),
         tag + ": allgather rows");

  // Broadcast from every member, given as a global rank.
  for (int root : ranks) {
    std::vector<int64_t> b(5, me * 10);
    must(hvd::broadcast_async("b." + std::to_string(root), view(b, {5}), view(b, {5}), root, id)
             .wait(),
         tag + " broadcast");
    expect(b[0] == root * 10 && b[4] == root * 10, tag + ": broadcast from " + std::to_string(root));
  }

  // Reducescatter: n + 1 rows, the first set rank gets 2.
  std::vector<int64_t> rs(static_cast<size_t>(n + 1), me + 1);
  const int my_rows = pos == 0 ? 2 : 1;
  std::vector<int64_t> rs_out(static_cast<size_t>(my_rows));
  must(hvd::reducescatter_async("rs", view(rs, {n + 1}), view(rs_out, {my_rows}),
                                hvd::ReduceOp::kSum, 1.0, 1.0, id)
           .wait(),
       tag + " reducescatter");
  expect(rs_out[0] == want_sum, tag + ": reducescatter");

  // Alltoall with uneven splits: p sends q + 1 rows of (me * 100 + q) to set rank q.
  std::vector<int64_t> splits, send;
  for (int q = 0; q < n; ++q) {
    splits.push_back(q + 1);
    send.insert(send.end(), static_cast<size_t>(q + 1), me * 100 + q);
  }
  hvd::Handle a =
      hvd::alltoallv_async("a", view(send, {static_cast<int64_t>(send.size())}), splits, id);
  must(a.wait(), tag + " alltoall");
  std::vector<int64_t> want_a;
  for (int p = 0; p < n; ++p) want_a.insert(want_a.end(), static_cast<size_t>(pos + 1), ranks[static_cast<size_t>(p)] * 100 + pos);
  const auto* got_a = reinterpret_cast<const int64_t*>(a.output().data());
  expect(a.output().size() == want_a.size() * sizeof(int64_t) &&
             std::equal(want_a.begin(), want_a.end(), got_a),
         tag + ": alltoall rows");
  must(hvd::barrier(id), tag + " barrier");
}

bool even(int r) { return r % 2 == 0; }
bool odd(int r) { return r % 2 == 1; }

}  // namespace

int main() {
  must(hvd::init(), "init");
  const int me = hvd::rank();
  const int size = hvd::size();
  const std::vector<int> evens = ranks_where(size, even);
  const std::vector<int> odds = ranks_where(size, odd);

  int even_id = -1, odd_id = -1;
  if (size == 1) {
    // One rank: the even ranks are all ranks, which set 0 already is.
    const hvd::Status s = hvd::add_process_set(evens, &even_id);
    expect(!s.ok() && s.message().find("already form process set 0") != std::string::npos,
           "the ranks of set 0 must be refused as a new set: " + s.message());
    const hvd::Status e = hvd::add_process_set({}, &even_id);
    expect(!e.ok() && e.message().find("at least one rank") != std::string::npos,
           "an empty set must be refused: " + e.message());
    collectives_in(0, evens, "global set");
    must(hvd::shutdown(), "shutdown");
    std::printf("process_set_probe: 1 rank, %d failures\n", probe_failures());
    return probe_failures() == 0 ? 0 : 1;
  }
  must(hvd::add_process_set(evens, &even_id), "add even set");
  {
    // Ranks given in another order name the same set.
    std::vector<int> reversed(odds.rbegin(), odds.rend());
    must(hvd::add_process_set(reversed, &odd_id), "add odd set");
    expect(odd_id == even_id + 1, "ids in order of adding");
  }
  expect(even_id > 0, "the first set gets an id above 0");

  if (even(me)) {
    collectives_in(even_id, evens, "even set");
  } else {
    collectives_in(odd_id, odds, "odd set");
  }
  collectives_in(0, ranks_where(size, [](int) { return true; }), "global set");

  // The same name in flight in two sets at once, and in the global set: names are per set.
  {
    const int mine = even(me) ? even_id : odd_id;
    const std::vector<int>& ranks = even(me) ? evens : odds;
    std::vector<int64_t> in(3, 1), out_set(3), out_all(3);
    hvd::Handle h_set =
        hvd::allreduce_async("same", view(in, {3}), view(out_set, {3}), hvd::ReduceOp::kSum, 1.0, 1.0, mine);
    hvd::Handle h_all =
        hvd::allreduce_async("same", view(in, {3}), view(out_all, {3}), hvd::ReduceOp::kSum, 1.0, 1.0, 0);
    must(h_set.wait(), "same name in the set");
    must(h_all.wait(), "same name in the global set");
    expect(out_set[0] == static_cast<int64_t>(ranks.size()) && out_all[0] == size,
           "same name: " + std::to_string(out_set[0]) + " and " + std::to_string(out_all[0]));
  }

  // Overlapping sets ({0..n-2} and {1..n-1}) with collectives in both at once.
  if (size >= 3) {
    std::vector<int> low, high;
    for (int r = 0; r < size - 1; ++r) low.push_back(r);
    for (int r = 1; r < size; ++r) high.push_back(r);
    int low_id = -1, high_id = -1;
    must(hvd::add_process_set(low, &low_id), "add low set");
    must(hvd::add_process_set(high, &high_id), "add high set");
    std::vector<int64_t> in(4, me), out_low(4), out_high(4);
    std::vector<hvd::Handle> hs;
    if (me < size - 1) hs.push_back(hvd::allreduce_async("o", view(in, {4}), view(out_low, {4}), hvd::ReduceOp::kSum, 1.0, 1.0, low_id));
    if (me > 0) hs.push_back(hvd::allreduce_async("o", view(in, {4}), view(out_high, {4}), hvd::ReduceOp::kSum, 1.0, 1.0, high_id));
    for (hvd::Handle& h : hs) must(h.wait(), "overlapping sets");
    const int64_t all = int64_t{size} * (size - 1) / 2;
    if (me < size - 1) expect(out_low[0] == all - (size - 1), "low set sum");
    if (me > 0) expect(out_high[0] == all, "high set sum");
    must(hvd::remove_process_set(low_id), "remove low set");
    must(hvd::remove_process_set(high_id), "remove high set");
  }

  // Errors, each the same on every rank, and nothing hangs.
  int dup_id = -1;
  hvd::Status s = hvd::add_process_set(evens, &dup_id);
  expect(!s.ok() && s.message().find("already form process set") != std::string::npos,
         "a duplicate set must be refused: " + s.message());
  s = hvd::add_process_set({0, size}, &dup_id);
  expect(!s.ok() && s.message().find("outside") != std::string::npos,
         "a rank outside the world must be refused: " + s.message());
  s = hvd::remove_process_set(0);
  expect(!s.ok() && s.message().find("cannot be removed") != std::string::npos,
         "removing set 0 must be refused: " + s.message());
  {
    const int other = even(me) ? odd_id : even_id;
    std::vector<int64_t> in(2, 1), out(2);
    s = hvd::allreduce_async("not.mine", view(in, {2}), view(out, {2}), hvd::ReduceOp::kSum, 1.0, 1.0, other).wait();
    expect(!s.ok() && s.message().find("is not in process set") != std::string::npos,
           "a set this rank is not in must be refused: " + s.message());
  }
  {
    // A dtype mismatch inside the even set fails there; the set keeps working.
    if (even(me)) {
      std::vector<int64_t> in(2, 1), out(2);
      hvd::TensorView v = view(in, {2});
      hvd::TensorView o = view(out, {2});
      if (me != 0) {
        v.dtype = hvd::DataType::kFloat64;
        o.dtype = hvd::DataType::kFloat64;
      }
      s = hvd::allreduce_async("mismatch", v, o, hvd::ReduceOp::kSum, 1.0, 1.0, even_id).wait();
      expect(evens.size() == 1 ? s.ok()
                               : (!s.ok() && s.message().find("mismatched data types") != std::string::npos &&
                                  s.message().find("process set " + std::to_string(even_id) + " (ranks [0, 2") != std::string::npos),
             "a dtype mismatch in a set, naming the set and its ranks: " + s.message());
      collectives_in(even_id, evens, "even set after a mismatch");
    }
  }
  must(hvd::remove_process_set(even_id), "remove even set");
  s = hvd::remove_process_set(even_id);
  expect(!s.ok() && s.message().find("no process set") != std::string::npos,
         "removing a removed set: " + s.message());
  if (even(me)) {
    std::vector<int64_t> in(2, 1), out(2);
    s = hvd::allreduce_async("gone", view(in, {2}), view(out, {2}), hvd::ReduceOp::kSum, 1.0, 1.0, even_id).wait();
    expect(!s.ok() && s.message().find("does not exist") != std::string::npos,
           "a removed set must be refused: " + s.message());
  }
  // Ids are not reused: a set added again gets a new one.
  int again = -1;
  must(hvd::add_process_set(evens, &again), "add the even set again");
  expect(again > std::max(even_id, odd_id), "a new id for a set added again");
  if (even(me)) collectives_in(again, evens, "even set added again");
  {
    // A tensor queued on a set just before the set is removed: it runs if a cycle takes it
    // first, else it fails as removed (most often both requests meet in the cycle that the
    // removal's wait runs); either way the runtime goes on.
    std::vector<int64_t> in(2, 1), out(2);
    hvd::Handle late;
    if (even(me)) {
      late = hvd::allreduce_async("late", view(in, {2}), view(out, {2}), hvd::ReduceOp::kSum,
                                  1.0, 1.0, again);
    }
    must(hvd::remove_process_set(again), "remove a set with a tensor queued on it");
    if (even(me)) {
      s = late.wait();
      expect(s.ok() || s.message().find("was removed") != std::string::npos,
             "a tensor queued on a set being removed: " + s.message());
    }
    must(hvd::barrier(), "barrier after removing a set with a tensor queued on it");
  }

  const std::vector<int> ids = hvd::process_set_ids();
  // One rank's shutdown stops every rank's runtime: wait for the even set's work first.
  must(hvd::barrier(), "barrier before shutdown");
  must(hvd::shutdown(), "shutdown");
  const char* backend = std::getenv("HVD_BACKEND");
  if (backend != nullptr && std::string(backend) == "mpi") {
    // MPI cannot be initialised twice in a process: the new runtime part is the rings'.
    if (me == 0) std::printf("process_set_probe: %d ranks, %d failures\n", size, probe_failures());
    return probe_failures() == 0 ? 0 : 1;
  }
  // A new runtime starts with the global set only.
  must(hvd::init(), "init again");
  expect(hvd::process_set_ids() == std::vector<int>{0}, "only set 0 after init again");
  int fresh = -1;
  must(hvd::add_process_set(evens, &fresh), "add after init again");
  expect(fresh == 1, "ids start at 1 in a new runtime");
  if (even(me)) collectives_in(fresh, evens, "even set in a new runtime");
  must(hvd::barrier(), "barrier before the second shutdown");
  must(hvd::shutdown(), "shutdown again");

  if (me == 0) {
    std::printf("process_set_probe: %d ranks, %zu sets at the end, %d failures\n", size,
                ids.size(), probe_failures());
  }
  return probe_failures() == 0 ? 0 : 1;
}
