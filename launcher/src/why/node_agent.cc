// SPDX-License-Identifier: Apache-2.0
#include "why/node_agent.h"

#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "hvd/why_protocol.h"
#include "store/kv_client.h"
#include "why/collector.h"
#include "why/rank_dir.h"

namespace hvd::launcher::why {
namespace {

constexpr std::chrono::milliseconds kAgentConnectTimeout{3000};
constexpr std::chrono::milliseconds kAgentPollInterval{50};

// libhvd answers for its own process; only a process without it needs this agent's help.
bool has_libhvd(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/libhvd") != std::string::npos) return true;
  }
  return false;
}

nlohmann::json answer_head(const LocalRank& r, const std::string& node) {
  return nlohmann::json{{"rank", r.rank}, {"pid", r.pid}, {"host", node}};
}

// Sends the Python stacks that ranks without libhvd dumped, as they come, until `wait` ends.
// An answer already in the store (libhvd's, which reads the same file) is left alone.
void send_dumps(store::KvClient& client, std::vector<LocalRank> waiting, const std::string& node,
                std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (!waiting.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kAgentPollInterval);
    for (auto it = waiting.begin(); it != waiting.end();) {
      const std::string key = hvd::why::why_rank_key(it->rank);
      if (client.try_get(key)) {
        it = waiting.erase(it);
        continue;
      }
      const std::string dump = take_python_dump(it->folder, it->rank);
      if (dump.empty()) {
        ++it;
        continue;
      }
      nlohmann::json answer = answer_head(*it, node);
      answer["python_stack"] = dump;
      client.set(key, answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      it = waiting.erase(it);
    }
  }
}

}  // namespace

int answer_for_node(const NodeAgentInput& input) {
  const std::vector<LocalRank> ranks = local_ranks(input.run_id, input.node);
  if (ranks.empty()) return 0;
  store::KvClient client = store::connect_from_env(input.env, kAgentConnectTimeout);
  std::vector<LocalRank> without_libhvd;
  for (const LocalRank& r : ranks) {
    const RankCondition c = process_condition(r.pid);
    if (c == RankCondition::kStopped || c == RankCondition::kGone) {
      nlohmann::json answer = answer_head(r, input.node);
      answer["condition"] = condition_name(c);
      client.set(hvd::why::why_rank_key(r.rank), answer.dump());
      continue;
    }
    kill(r.pid, hvd::why::kWhySignal);
    if (!has_libhvd(r.pid)) without_libhvd.push_back(r);
  }
  send_dumps(client, std::move(without_libhvd), input.node, input.dump_wait);
  return static_cast<int>(ranks.size());
}

}  // namespace hvd::launcher::why
