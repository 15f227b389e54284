// SPDX-License-Identifier: Apache-2.0
#pragma once
// The verdict's one sentence: which ranks hold the job up, and where in their code. Pure: it
// reads RankReports and says, for example,
//   "ranks 0 and 2-7 wait in allreduce `grad.fc1` #812 for 340 s; rank 1 has not submitted it:
//    it is in `next_batch` (train.py:88), computing for 340 s"
//
// The collective in focus is the one most ranks wait in (the oldest wait among equals): the
// ranks outside it are the culprits, whatever they do instead (compute, wait in another
// collective: a skipped or an extra tensor, be stopped or gone). A tensor that only a few ranks
// submitted (an extra one) is thereby not mistaken for the one the job waits on.

#include <string>
#include <vector>

#include "why/rank_report.h"

namespace hvd::launcher::why {

struct Culprit {
  std::string sentence;
  std::vector<int> ranks;  // the ranks it names as the cause, ascending; empty: none found
};

/// `reports` holds every rank, in rank order.
Culprit find_culprit(const std::vector<RankReport>& reports);

/// "rank 1", "ranks 0 and 2-7", "ranks 0, 3 and 5".
std::string format_ranks(const std::vector<int>& ranks);

/// "340 s", "2.5 s".
std::string format_seconds(double s);

}  // namespace hvd::launcher::why
