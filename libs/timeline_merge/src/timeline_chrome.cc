// SPDX-License-Identifier: Apache-2.0
#include "timeline_chrome.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hvd/str_cat.h"
#include "hvd/tensor.h"

namespace hvd::core {
namespace {

namespace fmt = timeline_format;

// A name as a JSON string literal; invalid UTF-8 becomes U+FFFD rather than an invalid trace.
std::string json_string(std::string_view name) {
  return nlohmann::json(std::string(name))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <typename Int>
void append_int(std::string& out, Int v) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, res.ptr);
}

// Nanoseconds as Chrome's microseconds, with three decimals.
void append_ts(std::string& out, int64_t ns) {
  uint64_t abs = static_cast<uint64_t>(ns);
  if (ns < 0) {
    out.push_back('-');
    abs = 0 - abs;  // also right for INT64_MIN
  }
  append_int(out, abs / 1000);
  const uint64_t frac = abs % 1000;
  out.push_back('.');
  out.push_back(static_cast<char>('0' + frac / 100));
  out.push_back(static_cast<char>('0' + frac / 10 % 10));
  out.push_back(static_cast<char>('0' + frac % 10));
}

std::string metadata_event(std::string_view kind, int pid, uint64_t tid, std::string_view arg,
                           const std::string& value) {
  return str_cat(R"({"name":")", kind, R"(","ph":"M","pid":)", pid, R"(,"tid":)", tid,
                 R"(,"args":{")", arg, R"(":)", value, "}}");
}

std::string dtype_label(uint8_t dtype) {
  // dtype_name() says "?" for a value past the last type, which the file may hold if damaged.
  const std::string_view name = dtype_name(static_cast<DataType>(dtype));
  if (name == "?") return str_cat("dtype", int{dtype});
  return std::string(name);
}

void append_args(std::string& out, const DecodedMeta& m) {
  out += R"(,"args":{"dtype":")";
  out += dtype_label(m.dtype);
  out += R"(","size":)";
  append_int(out, m.num_elements);
  if (m.has_shape) {
    out += R"(,"shape":[)";
    for (size_t i = 0; i < m.dims.size(); ++i) {
      if (i) out.push_back(',');
      append_int(out, m.dims[i]);
    }
    out.push_back(']');
  }
  out.push_back('}');
}

class EventFormatter {
 public:
  EventFormatter(const DecodedTimeline& t, int pid) : t_(t), pid_(pid) {
    for (const auto& [id, name] : t.names) names_.emplace(id, json_string(name));
  }

  // One event on track `tid`; false when its name is unknown.
  bool format(const DecodedEvent& ev, uint64_t tid, std::string& out) const {
    const auto name = names_.find(ev.name);
    if (name == names_.end()) return false;
    out.clear();
    out += R"({"name":)";
    out += name->second;
    out += R"(,"ph":")";
    out.push_back(ev.ph);
    out += ev.ph == 'i' ? R"(","s":"p","ts":)" : R"(","ts":)";
    append_ts(out, ev.ts_ns);
    out += R"(,"pid":)";
    append_int(out, pid_);
    out += R"(,"tid":)";
    append_int(out, tid);
    if (ev.meta >= 0) append_args(out, t_.metas[static_cast<size_t>(ev.meta)]);
    out.push_back('}');
    return true;
  }

 private:
  const DecodedTimeline& t_;
  const int pid_;
  std::unordered_map<uint32_t, std::string> names_;  // as JSON strings
};

// The events' indices by time. Threads recorded into their own buffers, so the file is in time
// order only per thread.
std::vector<size_t> time_order(const std::vector<DecodedEvent>& events) {
  std::vector<size_t> order(events.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return events[a].ts_ns < events[b].ts_ns; });
  return order;
}

}  // namespace

ChromeEventCounts write_chrome_events(const DecodedTimeline& t, int pid,
                                      const std::function<void(std::string_view)>& emit) {
  ChromeEventCounts counts;
  const auto put = [&](std::string_view element) {
    emit(element);
    ++counts.written;
  };
  put(metadata_event("thread_name", pid, 0, "name", "\"marks\""));
  // Tracks in id order, which is the order the tensors were first seen.
  const std::map<uint32_t, std::string> tensors(t.tensors.begin(), t.tensors.end());
  for (const auto& [id, name] : tensors) {
    const uint64_t tid = uint64_t{id} + 1;
    put(metadata_event("thread_name", pid, tid, "name", json_string(name)));
    put(metadata_event("thread_sort_index", pid, tid, "sort_index", std::to_string(tid)));
  }
  const EventFormatter formatter(t, pid);
  std::string line;
  const auto on_track = [&](const DecodedEvent& ev, uint64_t tid) {
    if (formatter.format(ev, tid, line)) {
      put(line);
    } else {
      ++counts.unresolved;
    }
  };
  for (size_t i : time_order(t.events)) {
    const DecodedEvent& ev = t.events[i];
    if (ev.subject == fmt::Subject::kMarks) {
      on_track(ev, 0);
    } else if (ev.subject == fmt::Subject::kTensor) {
      if (t.tensors.count(ev.subject_id) == 0) {
        ++counts.unresolved;
      } else {
        on_track(ev, uint64_t{ev.subject_id} + 1);
      }
    } else {
      const auto group = t.groups.find(ev.subject_id);
      if (group == t.groups.end()) {
        ++counts.unresolved;
        continue;
      }
      for (uint32_t tensor : group->second) {
        if (t.tensors.count(tensor) == 0) {
          ++counts.unresolved;
        } else {
          on_track(ev, uint64_t{tensor} + 1);
        }
      }
    }
  }
  for (const DecodedDrop& drop : t.drops) {
    line = R"({"name":"EVENTS_DROPPED","ph":"i","s":"p","ts":)";
    append_ts(line, drop.ts_ns);
    line += str_cat(R"(,"pid":)", pid, R"(,"tid":0,"args":{"count":)", drop.total, "}}");
    put(line);
  }
  return counts;
}

}  // namespace hvd::core
