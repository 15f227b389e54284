// SPDX-License-Identifier: Apache-2.0
#pragma once
// The verdict: every rank's state and stack on one screen, then the sentence naming the
// culprit (why/culprit.h); the same as JSON for `--json` and the file hvdrun writes when it
// stops a hung job.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "why/culprit.h"
#include "why/rank_report.h"

namespace hvd::launcher::why {

struct Verdict {
  std::string occasion;  // "hvdrun why", "stall", "SIGQUIT", "stall shutdown"
  double collect_s = 0;  // how long collecting took
  std::vector<RankReport> ranks;  // rank order
  Culprit culprit;
};

/// Judges `ranks` (find_culprit).
Verdict make_verdict(std::string occasion, std::vector<RankReport> ranks, double collect_s);

/// One screen: ranks in the same state share a line; the culprits' main-thread stacks (a few
/// frames each); the sentence last, after "verdict: ".
std::string render_screen(const Verdict& v);

nlohmann::json to_json(const Verdict& v);

}  // namespace hvd::launcher::why
