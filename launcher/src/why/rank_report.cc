// SPDX-License-Identifier: Apache-2.0
#include "why/rank_report.h"

#include "hvd/error.h"
#include "why/native_stack.h"
#include "why/python_stack.h"

namespace hvd::launcher::why {
namespace {

using nlohmann::json;

template <typename T>
T field(const json& j, const char* key, int rank) {
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw ConfigError(str_cat("rank ", rank, "'s answer to hvdrun why: field '", key,
                              "' is missing or has the wrong type"));
  }
}

OpInfo op_of(const json& j, int rank) {
  if (!j.is_object()) throw ConfigError(str_cat("rank ", rank, "'s answer: an operation is not an object"));
  return OpInfo{field<std::string>(j, "name", rank), field<std::string>(j, "op", rank),
                field<int>(j, "process_set", rank), field<uint64_t>(j, "seq", rank),
                field<double>(j, "age_s", rank)};
}

json op_json(const OpInfo& op) {
  return json{{"name", op.name}, {"op", op.op}, {"process_set", op.process_set},
              {"seq", op.seq},   {"age_s", op.age_s}};
}

void read_libhvd(const json& q, RankReport& r) {
  for (const json& p : field<json>(q, "pending", r.rank)) r.pending.push_back(op_of(p, r.rank));
  const json last = q.contains("last_done") ? q.at("last_done") : json();
  if (!last.is_null()) r.last_done = op_of(last, r.rank);
  r.quiet_s = field<double>(q, "quiet_s", r.rank);
  r.submitted = field<uint64_t>(q, "submitted", r.rank);
  r.completed = field<uint64_t>(q, "completed", r.rank);
  r.has_libhvd = true;
}

}  // namespace

RankReport parse_rank_answer(int rank, const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw ConfigError(str_cat("rank ", rank, "'s answer to hvdrun why is not a JSON object"));
  }
  RankReport r;
  r.rank = rank;
  r.condition = RankCondition::kAnswered;
  if (field<int>(j, "rank", rank) != rank) {
    throw ConfigError(str_cat("rank ", rank, "'s answer to hvdrun why names another rank"));
  }
  r.pid = field<int64_t>(j, "pid", rank);
  if (j.contains("host")) r.host = field<std::string>(j, "host", rank);
  // Set by `hvdrun why-node` for a rank that cannot answer itself (why/node_agent.h).
  if (j.contains("condition")) {
    const std::string c = field<std::string>(j, "condition", rank);
    if (c != condition_name(RankCondition::kStopped) && c != condition_name(RankCondition::kGone)) {
      throw ConfigError(str_cat("rank ", rank, "'s answer to hvdrun why: condition '", c,
                                "' is not 'stopped' or 'gone'"));
    }
    r.condition = c == condition_name(RankCondition::kStopped) ? RankCondition::kStopped
                                                                : RankCondition::kGone;
  }
  if (j.contains("libhvd")) read_libhvd(j.at("libhvd"), r);
  if (j.contains("python_stack")) r.python_stack = field<std::string>(j, "python_stack", rank);
  if (j.contains("native_stack")) r.native_stack = field<std::string>(j, "native_stack", rank);
  locate(r);
  return r;
}

void locate(RankReport& r) {
  if (!r.python_stack.empty()) {
    const std::vector<ThreadStack> threads = parse_python_stack(r.python_stack);
    if (const ThreadStack* main = main_thread(threads)) r.where = python_user_frame(*main);
    if (r.where) return;
  }
  if (!r.native_stack.empty()) {
    const NativeThreads native = parse_native_stack(r.native_stack);
    const ThreadStack* main = main_thread(native.threads);
    if (main != nullptr) {
      r.where = native_user_frame(native, static_cast<size_t>(main - native.threads.data()));
    }
  }
}

const char* condition_name(RankCondition c) {
  switch (c) {
    case RankCondition::kAnswered: return "answered";
    case RankCondition::kStopped: return "stopped";
    case RankCondition::kSilent: return "silent";
    case RankCondition::kGone: return "gone";
  }
  return "silent";
}

json to_json(const RankReport& r) {
  json pending = json::array();
  for (const OpInfo& op : r.pending) pending.push_back(op_json(op));
  json out{{"rank", r.rank},          {"host", r.host},   {"pid", r.pid},
           {"condition", condition_name(r.condition)},   {"libhvd", r.has_libhvd},
           {"pending", std::move(pending)},              {"quiet_s", r.quiet_s},
           {"submitted", r.submitted}, {"completed", r.completed}};
  out["last_done"] = r.last_done ? op_json(*r.last_done) : json();
  out["where"] = r.where ? json{{"function", r.where->function}, {"file", r.where->file},
                               {"line", r.where->line}}
                         : json();
  if (!r.python_stack.empty()) out["python_stack"] = r.python_stack;
  if (!r.native_stack.empty()) out["native_stack"] = r.native_stack;
  return out;
}

}  // namespace hvd::launcher::why
