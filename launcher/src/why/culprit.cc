// SPDX-License-Identifier: Apache-2.0
#include "why/culprit.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "hvd/str_cat.h"

namespace hvd::launcher::why {
namespace {

// The collective most ranks wait in: (process set, name) -> the ranks and their records.
struct Focus {
  int process_set = 0;
  std::string name;
  std::vector<int> waiting;
  OpInfo first;       // the record of the lowest waiting rank (its op and seq)
  double age_s = 0;   // the longest any of them has waited
};

std::optional<Focus> find_focus(const std::vector<RankReport>& reports) {
  std::map<std::pair<int, std::string>, Focus> by_key;
  for (const RankReport& r : reports) {
    for (const OpInfo& op : r.pending) {
      Focus& f = by_key[{op.process_set, op.name}];
      if (f.waiting.empty()) {
        f.process_set = op.process_set;
        f.name = op.name;
        f.first = op;
      }
      f.waiting.push_back(r.rank);
      f.age_s = std::max(f.age_s, op.age_s);
    }
  }
  std::optional<Focus> best;
  for (auto& [key, f] : by_key) {
    if (!best || f.waiting.size() > best->waiting.size() ||
        (f.waiting.size() == best->waiting.size() && f.age_s > best->age_s)) {
      best = f;
    }
  }
  return best;
}

std::string op_text(const OpInfo& op) {
  return str_cat(op.op, " `", op.name, "` #", op.seq);
}

std::string at_where(const RankReport& r) {
  return r.where ? str_cat(", at ", r.where->label()) : std::string();
}

// What a rank outside the focus does instead, without a subject: "is in `f` (a.py:3), ...".
std::string instead(const RankReport& r) {
  switch (r.condition) {
    case RankCondition::kStopped: return "is stopped (SIGSTOP or a debugger)";
    case RankCondition::kGone: return "has exited";
    case RankCondition::kSilent:
      return r.where ? str_cat("did not answer; its stack is in ", r.where->label())
                     : std::string("did not answer (no libhvd, or busy without its stack dump)");
    case RankCondition::kAnswered: break;
  }
  if (!r.pending.empty()) return str_cat("waits in ", op_text(r.pending.front()), " instead", at_where(r));
  if (r.where) return str_cat("is in ", r.where->label(), ", computing for ", format_seconds(r.quiet_s));
  return str_cat("is computing for ", format_seconds(r.quiet_s));
}

std::string about_missing(const std::vector<RankReport>& reports, const std::vector<int>& missing) {
  // Ranks that do the same thing are named together, in the order of their lowest rank.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int rank : missing) {
    const std::string what = instead(reports[static_cast<size_t>(rank)]);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == what; });
    if (it == groups.end()) {
      groups.push_back({what, {rank}});
    } else {
      it->second.push_back(rank);
    }
  }
  std::string out;
  for (const auto& [what, ranks] : groups) {
    if (!out.empty()) out += "; ";
    out += ranks.size() == 1 ? str_cat(format_ranks(ranks), " has not submitted it: it ", what)
                             : str_cat(format_ranks(ranks), " have not submitted it: each ", what);
  }
  return out;
}

Culprit without_focus(const std::vector<RankReport>& reports) {
  std::vector<int> stopped;
  const RankReport* longest = nullptr;
  for (const RankReport& r : reports) {
    if (r.condition == RankCondition::kStopped || r.condition == RankCondition::kGone) {
      stopped.push_back(r.rank);
    } else if (r.condition == RankCondition::kAnswered && (!longest || r.quiet_s > longest->quiet_s)) {
      longest = &r;
    }
  }
  if (!stopped.empty()) {
    return {str_cat(format_ranks(stopped), stopped.size() == 1 ? " " : ": each ",
                    instead(reports[static_cast<size_t>(stopped.front())]),
                    "; no rank waits in a collective"),
            stopped};
  }
  if (longest == nullptr) return {"no rank answered: nothing is known about where they are", {}};
  return {str_cat("no rank waits in a collective: all compute; the longest, rank ", longest->rank,
                  ", for ", format_seconds(longest->quiet_s),
                  longest->where ? str_cat(" in ", longest->where->label()) : std::string()),
          {}};
}

}  // namespace

std::string format_seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof(text), s >= 10 ? "%.0f s" : "%.1f s", s);
  return text;
}

std::string format_ranks(const std::vector<int>& ranks) {
  std::vector<std::string> items;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (j - i >= 2) {
      items.push_back(str_cat(ranks[i], "-", ranks[j]));
    } else {
      for (size_t k = i; k <= j; ++k) items.push_back(std::to_string(ranks[k]));
    }
    i = j + 1;
  }
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

Culprit find_culprit(const std::vector<RankReport>& reports) {
  const std::optional<Focus> focus = find_focus(reports);
  if (!focus) return without_focus(reports);
  const std::string waits = str_cat(focus->waiting.size() == 1 ? " waits in " : " wait in ",
                                     op_text(focus->first), " for ", format_seconds(focus->age_s));
  std::vector<int> missing;
  for (const RankReport& r : reports) {
    if (std::find(focus->waiting.begin(), focus->waiting.end(), r.rank) == focus->waiting.end()) {
      missing.push_back(r.rank);
    }
  }
  if (missing.empty()) {
    return {str_cat("every rank", waits,
                    ": all have submitted it, so the transfer itself is stuck (a slow or broken "
                    "link, or a stopped peer)"),
            {}};
  }
  return {str_cat(format_ranks(focus->waiting), waits, "; ", about_missing(reports, missing)),
          missing};
}

}  // namespace hvd::launcher::why
