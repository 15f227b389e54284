// SPDX-License-Identifier: Apache-2.0
#include "why/verdict.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "hvd/error.h"
#include "why/native_stack.h"
#include "why/python_stack.h"

namespace hvd::launcher::why {
namespace {

using nlohmann::json;

constexpr size_t kStackFramesShown = 6;
constexpr size_t kPendingNamesShown = 3;
// Where a line's longest wait goes ("waits in allreduce `g` #3 for 8.5 s; ...").
constexpr const char* kForPlaceholder = "\x01";

std::string pending_names(const RankReport& r) {
  std::string out;
  for (size_t i = 0; i < r.pending.size() && i < kPendingNamesShown; ++i) {
    out += (i > 0 ? ", " : "") + r.pending[i].name;
  }
  if (r.pending.size() > kPendingNamesShown) {
    out += str_cat(" and ", r.pending.size() - kPendingNamesShown, " more");
  }
  return out;
}

// A rank's state in a few words; ranks with the same words share a line. The wait's length
// is left out here (ranks that wait together differ by milliseconds) and added per line.
std::string state_words(const RankReport& r) {
  std::string s;
  switch (r.condition) {
    case RankCondition::kStopped: return "stopped (SIGSTOP or a debugger)";
    case RankCondition::kGone: return "exited";
    case RankCondition::kSilent: s = "no answer"; break;
    case RankCondition::kAnswered:
      if (!r.pending.empty()) {
        const OpInfo& op = r.pending.front();
        s = str_cat("waits in ", op.op, " `", op.name, "` #", op.seq, kForPlaceholder);
        if (r.pending.size() > 1) s += str_cat("; pending: ", pending_names(r));
      } else if (r.has_libhvd) {
        s = str_cat("computing for ", format_seconds(r.quiet_s));
      } else {
        s = "answered";
      }
      break;
  }
  if (r.where) s += str_cat("; at ", r.where->label());
  if (r.last_done) s += str_cat("; last ran ", r.last_done->op, " `", r.last_done->name, "` #", r.last_done->seq);
  return s;
}

std::vector<Frame> main_frames(const RankReport& r) {
  if (!r.python_stack.empty()) {
    const std::vector<ThreadStack> threads = parse_python_stack(r.python_stack);
    if (const ThreadStack* t = main_thread(threads)) return t->frames;
  }
  const NativeThreads native = parse_native_stack(r.native_stack);
  if (const ThreadStack* t = main_thread(native.threads)) return t->frames;
  return {};
}

std::string stack_lines(const RankReport& r) {
  const std::vector<Frame> frames = main_frames(r);
  if (frames.empty()) return {};
  std::string out = str_cat("  rank ", r.rank, ", main thread (", r.python_stack.empty() ? "native" : "Python",
                            ", innermost first):\n");
  for (size_t i = 0; i < frames.size() && i < kStackFramesShown; ++i) {
    out += str_cat("    ", frames[i].label(), "\n");
  }
  if (frames.size() > kStackFramesShown) out += str_cat("    ... ", frames.size() - kStackFramesShown, " more\n");
  return out;
}

}  // namespace

Verdict make_verdict(std::string occasion, std::vector<RankReport> ranks, double collect_s) {
  Verdict v{std::move(occasion), collect_s, std::move(ranks), {}};
  v.culprit = find_culprit(v.ranks);
  return v;
}

std::string render_screen(const Verdict& v) {
  struct Group {
    std::string words;
    std::vector<int> ranks;
    double longest_wait = 0;
  };
  std::vector<Group> groups;
  for (const RankReport& r : v.ranks) {
    const std::string words = state_words(r);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.words == words; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{words, {}, 0});
    it->ranks.push_back(r.rank);
    if (!r.pending.empty()) it->longest_wait = std::max(it->longest_wait, r.pending.front().age_s);
  }
  char took[32];
  std::snprintf(took, sizeof(took), "%.1f", v.collect_s);
  std::string out = str_cat("hvdrun why (", v.occasion, "): ", v.ranks.size(), " ranks, collected in ",
                            took, " s\n");
  for (const Group& g : groups) {
    std::string words = g.words;
    const size_t mark = words.find(kForPlaceholder);
    if (mark != std::string::npos) words.replace(mark, 1, " for " + format_seconds(g.longest_wait));
    out += str_cat("  ", format_ranks(g.ranks), ": ", words, "\n");
  }
  for (int rank : v.culprit.ranks) out += stack_lines(v.ranks[static_cast<size_t>(rank)]);
  out += str_cat("verdict: ", v.culprit.sentence);
  return out;
}

json to_json(const Verdict& v) {
  json ranks = json::array();
  for (const RankReport& r : v.ranks) ranks.push_back(to_json(r));
  return json{{"occasion", v.occasion},
              {"collect_s", v.collect_s},
              {"verdict", v.culprit.sentence},
              {"culprits", v.culprit.ranks},
              {"ranks", std::move(ranks)},
              {"screen", render_screen(v)}};
}

}  // namespace hvd::launcher::why
