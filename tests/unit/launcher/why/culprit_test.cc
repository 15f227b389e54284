// SPDX-License-Identifier: Apache-2.0
#include "why/culprit.h"

#include <doctest/doctest.h>

#include "why/verdict.h"

namespace why = hvd::launcher::why;

namespace {

why::RankReport waiting(int rank, const std::string& name, uint64_t seq, double age) {
  why::RankReport r;
  r.rank = rank;
  r.condition = why::RankCondition::kAnswered;
  r.has_libhvd = true;
  r.pending.push_back(why::OpInfo{name, "allreduce", 0, seq, age});
  r.where = why::Frame{"train_step", "/home/u/train.py", 120};
  return r;
}

why::RankReport computing(int rank, double quiet, why::Frame where) {
  why::RankReport r;
  r.rank = rank;
  r.condition = why::RankCondition::kAnswered;
  r.has_libhvd = true;
  r.quiet_s = quiet;
  r.where = std::move(where);
  return r;
}

// Eight ranks: all but rank 1 wait in grad.fc1; rank 1 is `odd`.
std::vector<why::RankReport> eight_with(why::RankReport odd) {
  std::vector<why::RankReport> ranks;
  // Ranks that wait together started milliseconds apart.
  for (int r = 0; r < 8; ++r) ranks.push_back(r == 1 ? odd : waiting(r, "grad.fc1", 812, 340 - 0.01 * r));
  return ranks;
}

}  // namespace

TEST_CASE("culprit: a rank that computes while the others wait is named with its function") {
  const why::Culprit c =
      why::find_culprit(eight_with(computing(1, 340, {"next_batch", "/home/u/train.py", 88})));
  CHECK(c.ranks == std::vector<int>{1});
  CHECK(c.sentence ==
        "ranks 0 and 2-7 wait in allreduce `grad.fc1` #812 for 340 s; rank 1 has not submitted "
        "it: it is in `next_batch` (train.py:88), computing for 340 s");
}

TEST_CASE("culprit: a skipped or an extra tensor leaves the rank waiting in another collective") {
  // Skipped: rank 1 went on to grad.fc2. Extra: it waits in a tensor nobody else submits. Either
  // way the collective most ranks wait in is the one in focus.
  const why::Culprit c = why::find_culprit(eight_with(waiting(1, "extra.tensor", 813, 341)));
  CHECK(c.ranks == std::vector<int>{1});
  CHECK(c.sentence.find("ranks 0 and 2-7 wait in allreduce `grad.fc1` #812") == 0);
  CHECK(c.sentence.find("rank 1 has not submitted it: it waits in allreduce `extra.tensor` #813 "
                        "instead, at `train_step` (train.py:120)") != std::string::npos);
}

TEST_CASE("culprit: stopped, exited and silent ranks say so") {
  why::RankReport stopped;
  stopped.rank = 1;
  stopped.condition = why::RankCondition::kStopped;
  std::vector<why::RankReport> ranks = eight_with(stopped);
  ranks[5] = ranks[1];
  ranks[5].rank = 5;
  ranks[6].condition = why::RankCondition::kGone;
  ranks[6].pending.clear();
  const why::Culprit c = why::find_culprit(ranks);
  CHECK(c.ranks == std::vector<int>{1, 5, 6});
  CHECK(c.sentence.find("ranks 0, 2-4 and 7 wait in allreduce") == 0);
  CHECK(c.sentence.find("ranks 1 and 5 have not submitted it: each is stopped (SIGSTOP or a "
                        "debugger); rank 6 has not submitted it: it has exited") !=
        std::string::npos);
}

TEST_CASE("culprit: without a collective in focus, the longest computing rank is named") {
  std::vector<why::RankReport> ranks = {computing(0, 3, {"f", "a.py", 1}),
                                        computing(1, 30, {"g", "b.py", 2})};
  const why::Culprit c = why::find_culprit(ranks);
  CHECK(c.ranks.empty());
  CHECK(c.sentence == "no rank waits in a collective: all compute; the longest, rank 1, for 30 s "
                      "in `g` (b.py:2)");
  SUBCASE("every rank in the same collective: the transfer is stuck") {
    ranks = {waiting(0, "x", 4, 12), waiting(1, "x", 4, 11)};
    CHECK(why::find_culprit(ranks).sentence.find("every rank wait") == 0);
  }
}

TEST_CASE("culprit: rank lists and seconds read as a sentence") {
  CHECK(why::format_ranks({1}) == "rank 1");
  CHECK(why::format_ranks({0, 1}) == "ranks 0 and 1");
  CHECK(why::format_ranks({0, 2, 3, 4, 5, 6, 7}) == "ranks 0 and 2-7");
  CHECK(why::format_ranks({0, 3, 5}) == "ranks 0, 3 and 5");
  CHECK(why::format_seconds(340.4) == "340 s");
  CHECK(why::format_seconds(2.46) == "2.5 s");
}

TEST_CASE("verdict: one line per group of ranks in the same state, the culprit's stack, the sentence") {
  why::RankReport odd = computing(1, 340, {"next_batch", "/home/u/train.py", 88});
  odd.python_stack =
      "Current thread 0x00007f3c8e1b2740 (most recent call first):\n"
      "  File \"/home/u/train.py\", line 88 in next_batch\n"
      "  File \"/home/u/train.py\", line 120 in <module>\n";
  const why::Verdict v = why::make_verdict("stall", eight_with(odd), 0.4);
  const std::string screen = why::render_screen(v);
  CHECK(screen.find("hvdrun why (stall): 8 ranks, collected in 0.4 s\n") == 0);
  CHECK(screen.find("  ranks 0 and 2-7: waits in allreduce `grad.fc1` #812 for 340 s; at "
                    "`train_step` (train.py:120)\n") != std::string::npos);
  CHECK(screen.find("  rank 1, main thread (Python, innermost first):\n    `next_batch` "
                    "(train.py:88)\n") != std::string::npos);
  CHECK(screen.find("\nverdict: ranks 0 and 2-7 wait") != std::string::npos);
  const nlohmann::json j = why::to_json(v);
  CHECK(j["culprits"] == nlohmann::json::array({1}));
  CHECK(j["ranks"].size() == 8);
}

TEST_CASE("verdict: ranks that wait in the same collective share a line, with the longest wait") {
  // 8.41 s and 8.46 s print differently ("8.4 s", "8.5 s"): the line must not split on that.
  std::vector<why::RankReport> ranks = {waiting(0, "g", 3, 8.41), waiting(1, "g", 3, 8.46),
                                        computing(2, 8.5, {"f", "a.py", 1})};
  const std::string screen = why::render_screen(why::make_verdict("SIGQUIT", ranks, 0.1));
  CHECK(screen.find("  ranks 0 and 1: waits in allreduce `g` #3 for 8.5 s; at `train_step`") !=
        std::string::npos);
}
