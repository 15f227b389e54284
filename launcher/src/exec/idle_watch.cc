// SPDX-License-Identifier: Apache-2.0
#include "exec/idle_watch.h"

#include <time.h>

#include <map>

#include "hvd/str_cat.h"

namespace hvd::launcher::exec {
namespace {

using std::chrono::duration_cast;
using std::chrono::seconds;

// Local time of day, as the user's own clock shows it beside the job's log.
std::string time_of_day(IdleWatch::WallClock::time_point t) {
  const time_t secs = IdleWatch::WallClock::to_time_t(t);
  tm local{};
  localtime_r(&secs, &local);
  char text[16];
  strftime(text, sizeof(text), "%H:%M:%S", &local);
  return text;
}

}  // namespace

std::string rank_ranges(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? std::to_string(ranks[i]) : str_cat(ranks[i], "-", ranks[j]);
    i = j + 1;
  }
  return out;
}

IdleWatch::IdleWatch(int num_ranks, std::chrono::seconds timeout, Clock::time_point start)
    : timeout_(timeout),
      start_(start),
      last_any_(start),
      last_(static_cast<size_t>(num_ranks), start) {}

void IdleWatch::saw_output(int rank, Clock::time_point now) {
  if (rank < 0 || static_cast<size_t>(rank) >= last_.size()) return;
  last_[static_cast<size_t>(rank)] = now;
  if (now > last_any_) last_any_ = now;
}

std::string IdleWatch::report(Clock::time_point now, WallClock::time_point wall_now) const {
  // Grouped by the second of their last output; -1: nothing since the start. The map's order
  // puts the longest silence first.
  std::map<long long, std::vector<int>> groups;
  for (size_t r = 0; r < last_.size(); ++r) {
    const long long at =
        last_[r] == start_ ? -1 : duration_cast<seconds>(last_[r] - start_).count();
    groups[at].push_back(static_cast<int>(r));
  }
  std::string text = str_cat("no output from any rank for ",
                             duration_cast<seconds>(now - last_any_).count(),
                             " s (--idle-timeout ", timeout_.count(), "):");
  for (const auto& [at, ranks] : groups) {
    const Clock::time_point last = at < 0 ? start_ : start_ + seconds(at);
    const auto wall = wall_now - duration_cast<WallClock::duration>(now - last);
    text += str_cat(ranks.size() == 1 ? " rank " : " ranks ", rank_ranges(ranks),
                    at < 0 ? " wrote nothing since the start at " : " silent since ",
                    time_of_day(wall), " (", duration_cast<seconds>(now - last).count(),
                    " s ago);");
  }
  return text + " stopping the job";
}

}  // namespace hvd::launcher::exec
