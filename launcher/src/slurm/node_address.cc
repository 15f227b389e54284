// SPDX-License-Identifier: Apache-2.0
#include "slurm/node_address.h"

#include <netdb.h>

#include <map>
#include <mutex>

#include "hvd/error.h"
#include "proc/command_output.h"
#include "slurm/hostlist.h"
#include "slurm/scontrol_nodes.h"
#include "slurm/slurm_tools.h"

namespace hvd::launcher::slurm {
namespace {

// Nodes named in one scontrol run: enough for every node one plan asks about on most jobs
// (the first node, the store's few peers), and a bounded output (about 1 KiB a node).
constexpr size_t kNodesPerQuery = 64;

bool resolves(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  const int rc = getaddrinfo(name.c_str(), nullptr, &hints, &result);
  if (result != nullptr) freeaddrinfo(result);
  return rc == 0;
}

// What the answers depend on besides the node: which scontrol (PATH), which cluster, which job.
// Plain strings, so that comparing them costs no PATH search per call.
struct Context {
  std::string path;
  std::string slurm_conf;
  std::string job_nodelist;
  bool operator==(const Context& o) const {
    return path == o.path && slurm_conf == o.slurm_conf && job_nodelist == o.job_nodelist;
  }
};

Context context_of(const EnvMap& env) {
  return {env_string(env, "PATH", ""), env_string(env, "SLURM_CONF", ""),
          env_string(env, "SLURM_JOB_NODELIST", env_string(env, "SLURM_NODELIST", ""))};
}

// One planning run asks about the same nodes several times (MASTER_ADDR, the store's peers,
// TF_CONFIG's workers): each node is resolved once, and scontrol is asked about many nodes at
// once. Process-wide because the callers (cli/slurm_run.cc) hold no state to keep it in; it
// starts over whenever the context changes (only tests change it).
class AddressCache {
 public:
  std::string address(const std::string& node, const EnvMap& env) {
    const std::lock_guard<std::mutex> lock(mu_);
    if (Context now = context_of(env); !(now == context_)) reset(std::move(now));
    if (const auto it = answers_.find(node); it != answers_.end()) return it->second;
    std::string addr = resolves(node) ? node : scontrol_addr(node, env);
    if (addr.empty()) addr = node;  // the error surfaces where the address is used
    answers_[node] = addr;
    return addr;
  }

 private:
  void reset(Context c) {
    context_ = std::move(c);
    answers_.clear();
    scontrol_addrs_.clear();
    scontrol_path_.clear();
    scontrol_looked_up_ = false;
    job_nodes_.clear();
    job_nodes_expanded_ = false;
  }

  std::string scontrol_addr(const std::string& node, const EnvMap& env) {
    if (const auto it = scontrol_addrs_.find(node); it != scontrol_addrs_.end()) return it->second;
    const std::string& scontrol = scontrol_path(env);
    if (scontrol.empty()) return {};
    const std::vector<std::string> nodes =
        nodes_to_query(node, job_nodes(), scontrol_addrs_, kNodesPerQuery);
    std::string list;
    for (const std::string& n : nodes) list += (list.empty() ? "" : ",") + n;
    // No shell: the node name, whatever it holds, is one argument of scontrol's.
    std::map<std::string, std::string> found =
        parse_node_addrs(proc::run_for_output({scontrol, "show", "node", list}, env).out);
    // Asked about one node, its record is the answer even under another name (an alias).
    if (nodes.size() == 1 && found.count(node) == 0 && !found.empty()) {
      found[node] = found.begin()->second;
    }
    for (const std::string& n : nodes) scontrol_addrs_[n] = found.count(n) > 0 ? found[n] : "";
    return scontrol_addrs_[node];
  }

  // Looked up once per context; empty when there is no scontrol on PATH.
  const std::string& scontrol_path(const EnvMap& env) {
    if (!scontrol_looked_up_) {
      scontrol_looked_up_ = true;
      try {
        scontrol_path_ = find_slurm_tool("scontrol", env);
      } catch (const SchedulerError&) {
      }
    }
    return scontrol_path_;
  }

  const std::vector<std::string>& job_nodes() {
    if (!job_nodes_expanded_) {
      job_nodes_expanded_ = true;
      try {
        job_nodes_ = expand_hostlist(context_.job_nodelist);
      } catch (const SchedulerError&) {
        // A bad list is reported where the allocation is parsed; here: one node per query.
      }
    }
    return job_nodes_;
  }

  std::mutex mu_;
  Context context_;
  std::map<std::string, std::string> answers_;         // node_address() results
  std::map<std::string, std::string> scontrol_addrs_;  // by node; "" when scontrol had none
  std::string scontrol_path_;
  bool scontrol_looked_up_ = false;
  std::vector<std::string> job_nodes_;
  bool job_nodes_expanded_ = false;
};

}  // namespace

std::string node_address(const std::string& node, const EnvMap& env) {
  static AddressCache cache;
  return cache.address(node, env);
}

}  // namespace hvd::launcher::slurm
