// SPDX-License-Identifier: Apache-2.0
// The public API (hvd/hvd.h) over one Runtime. The only global of libhvd is the instance
// pointer below (instead of Horovod's horovod_global state struct); no exception crosses
// the API: each is turned into a Status.

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "control/join_rules.h"
#include "control/message.h"
#include "core/runtime_factory.h"
#include "env/env.h"
#include "hvd/env_keys.h"
#include "hvd/hvd.h"
#include "timeline_merge/timeline_merge.h"

namespace hvd {
namespace {

std::mutex g_mutex;  // guards g_instance's creation and destruction
std::unique_ptr<core::Instance> g_instance;
std::atomic<core::Runtime*> g_runtime{nullptr};
std::mutex g_barrier_mutex;
std::map<int, uint64_t> g_barriers;  // per process set: names barriers alike on its ranks
int g_incarnations = 0;  // init() attempts in this process; guarded by g_mutex

Handle failed(ErrorCode code, const std::string& message) {
  auto state = core::new_handle();
  state->complete(Status::error(code, message));
  return Handle(state);
}

control::Request request(const std::string& name, control::OpType type, const TensorView& t) {
  control::Request r;
  r.name = name;
  r.type = type;
  r.dtype = t.dtype;
  r.device = t.device;
  r.shape = t.shape;
  return r;
}

// A grouped allreduce's id: a hash of its names, so that every rank computes the same id without
// negotiation AND the same group gets the same id at every step, which lets its responses come
// from the response cache (whose entries include the group). Names are unique while in flight,
// so two groups in flight share an id only by a hash collision, and then they are merely fused
// together.
int32_t group_id(const std::vector<std::string>& names) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const std::string& name : names) {
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;  // a separator, so ("ab","c") differs from ("a","bc")
  }
  return static_cast<int32_t>(h % (1u << 30));
}

BufferView view(const TensorView& t) { return BufferView{t.data, t.count(), t.dtype, t.device}; }

Handle submit(control::Request&& r, const TensorView& in, const TensorView& out,
              int process_set) {
  core::Runtime* rt = g_runtime.load();
  if (rt == nullptr) return failed(ErrorCode::kUsage, "hvd::init() has not been called");
  try {
    return Handle(rt->enqueue(std::move(r), view(in), view(out), process_set));
  } catch (...) {
    auto state = core::new_handle();
    state->complete(Status::from_exception(std::current_exception()));
    return Handle(state);
  }
}

// The environment the next runtime starts from: the process's as it is at this init(). An
// init() after a shutdown() is a new incarnation of the job's runtime: its keys in hvdrun's
// store (HVD_RUN_ID is their namespace) get a namespace of their own, so that its bootstrap
// never meets the earlier incarnation's keys and barrier counters. init() and shutdown() are
// collective, so every rank counts the same incarnations. A failed init() counts too: it may have arrived at a barrier of its namespace
// before failing (every rank fails alike on a bad setting), and a retry must not arrive there
// again. Shared-memory segment names keep the plain run id (shm_transport.cc reads it from the
// process), so hvdrun's guard still finds every one of them.
EnvMap incarnation_env(int incarnation) {
  EnvMap env = current_process_env();
  if (incarnation > 0) {
    env[env::kRunId] = str_cat(env_string(env, env::kRunId, "no-run-id"), "/init-", incarnation);
  }
  return env;
}

int world_field(int bootstrap::WorldInfo::*field) {
  core::Runtime* rt = g_runtime.load();
  return rt == nullptr ? -1 : rt->world().*field;
}

}  // namespace

size_t TensorView::count() const {
  // An invalid shape (a negative dimension, a size beyond int64) counts no elements, so nothing
  // is ever sized from it; it is still negotiated, and the coordinator fails it on every rank
  // with an error naming the tensor and the rank (control::shape_problem), so that the other
  // ranks do not wait for it forever.
  const int64_t count = control::checked_element_count(shape, dtype);
  return count < 0 ? 0 : static_cast<size_t>(count);
}

Status Handle::wait() const {
  return state_ ? state_->wait() : Status::error(ErrorCode::kUsage, "an empty handle");
}
bool Handle::poll() const { return !state_ || state_->done(); }
const std::vector<char>& Handle::output() const { return state_->output; }
const std::vector<int64_t>& Handle::output_shape() const { return state_->output_shape; }
const std::vector<int64_t>& Handle::received_splits() const { return state_->received_splits; }

Status init() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_instance) return Status();
  {
    std::lock_guard<std::mutex> barriers(g_barrier_mutex);
    g_barriers.clear();  // a new runtime's sets count their barriers from 0 on every rank
  }
  try {
    const int incarnation = g_incarnations++;
    g_instance = std::make_unique<core::Instance>(core::make_instance(incarnation_env(incarnation)));
    g_runtime = g_instance->runtime.get();
    return Status();
  } catch (...) {
    return Status::from_exception(std::current_exception());
  }
}

Status shutdown() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_instance) return Status();
  try {
    g_runtime = nullptr;
    g_instance->runtime->shutdown();
    g_instance.reset();
    return Status();
  } catch (...) {
    g_instance.reset();
    return Status::from_exception(std::current_exception());
  }
}

bool initialized() { return g_runtime.load() != nullptr; }
int rank() { return world_field(&bootstrap::WorldInfo::rank); }
int size() { return world_field(&bootstrap::WorldInfo::size); }
int local_rank() { return world_field(&bootstrap::WorldInfo::local_rank); }
int local_size() { return world_field(&bootstrap::WorldInfo::local_size); }
int cross_rank() { return world_field(&bootstrap::WorldInfo::cross_rank); }
int cross_size() { return world_field(&bootstrap::WorldInfo::cross_size); }

Handle allreduce_async(const std::string& name, const TensorView& in, const TensorView& out,
                       ReduceOp op, double prescale, double postscale, int process_set) {
  control::Request r = request(name, control::OpType::kAllreduce, in);
  r.op = op;
  r.prescale = prescale;
  r.postscale = postscale;
  return submit(std::move(r), in, out, process_set);
}

std::vector<Handle> grouped_allreduce_async(const std::vector<std::string>& names,
                                            const std::vector<TensorView>& in,
                                            const std::vector<TensorView>& out, ReduceOp op,
                                            double prescale, double postscale, int process_set) {
  if (names.size() != in.size() || names.size() != out.size()) {
    return {failed(ErrorCode::kUsage,
                   "grouped allreduce: names, inputs and outputs must have the same length")};
  }
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].device != in[0].device) {
      // One group is one fused buffer on one device; the planner cannot split it.
      return std::vector<Handle>(
          names.size(),
          failed(ErrorCode::kUsage,
                 str_cat("grouped allreduce: '", names[i], "' is on device ", in[i].device.index,
                         " but '", names[0], "' on device ", in[0].device.index,
                         "; put the tensors of one group on one device")));
    }
  }
  core::Runtime* rt = g_runtime.load();
  if (rt == nullptr) return {failed(ErrorCode::kUsage, "hvd::init() has not been called")};
  const int32_t group = group_id(names);
  std::vector<control::Request> requests;
  std::vector<BufferView> inputs, outputs;
  for (size_t i = 0; i < names.size(); ++i) {
    control::Request r = request(names[i], control::OpType::kAllreduce, in[i]);
    r.op = op;
    r.prescale = prescale;
    r.postscale = postscale;
    r.group = group;
    requests.push_back(std::move(r));
    inputs.push_back(view(in[i]));
    outputs.push_back(view(out[i]));
  }
  std::vector<Handle> handles;
  try {
    for (auto& state : rt->enqueue_group(std::move(requests), inputs, outputs, process_set)) {
      handles.emplace_back(std::move(state));
    }
  } catch (...) {
    handles.assign(names.size(), Handle());
    const Status error = Status::from_exception(std::current_exception());
    for (Handle& h : handles) h = failed(error.code(), error.message());
  }
  return handles;
}

Handle broadcast_async(const std::string& name, const TensorView& in, const TensorView& out,
                       int root, int process_set) {
  control::Request r = request(name, control::OpType::kBroadcast, in);
  // The root within the set. A root outside it becomes -1, which negotiation refuses on every
  // rank (naming the tensor), rather than this rank alone failing while the others wait.
  r.root = root;
  if (process_set != 0) {
    const std::vector<int> ranks = process_set_ranks(process_set);
    const auto it = std::find(ranks.begin(), ranks.end(), root);
    r.root = it == ranks.end() ? -1 : static_cast<int>(it - ranks.begin());
  }
  return submit(std::move(r), in, out, process_set);
}

Handle allgather_async(const std::string& name, const TensorView& in, int process_set) {
  return submit(request(name, control::OpType::kAllgather, in), in, in, process_set);
}

Handle reducescatter_async(const std::string& name, const TensorView& in, const TensorView& out,
                           ReduceOp op, double prescale, double postscale, int process_set) {
  control::Request r = request(name, control::OpType::kReducescatter, in);
  r.op = op;
  r.prescale = prescale;
  r.postscale = postscale;
  return submit(std::move(r), in, out, process_set);
}

Handle alltoall_async(const std::string& name, const TensorView& in, const TensorView& out,
                      int process_set) {
  // The row split itself (a multiple of the ranks) is checked in negotiation, so that every
  // rank gets the same error.
  if (out.count() != in.count()) {
    return failed(ErrorCode::kUsage,
                  str_cat("alltoall '", name, "': the output has ", out.count(),
                          " elements, the input ", in.count(), "; they must have the same shape"));
  }
  return submit(request(name, control::OpType::kAlltoall, in), in, out, process_set);
}

Handle alltoallv_async(const std::string& name, const TensorView& in,
                       const std::vector<int64_t>& splits, int process_set) {
  control::Request r = request(name, control::OpType::kAlltoall, in);
  r.splits = splits;  // checked in negotiation, so that every rank gets the same error
  if (r.splits.empty()) r.splits.push_back(-1);  // "no splits" would mean equal blocks
  return submit(std::move(r), in, in, process_set);
}

Status barrier(int process_set) {
  const TensorView none{nullptr, DataType::kUInt8, {0}, {}};
  uint64_t n = 0;
  {
    std::lock_guard<std::mutex> lock(g_barrier_mutex);
    n = g_barriers[process_set]++;
  }
  return submit(request(str_cat("hvd.barrier.", n), control::OpType::kBarrier, none), none, none,
                process_set)
      .wait();
}

Status add_process_set(const std::vector<int>& ranks, int* id) {
  core::Runtime* rt = g_runtime.load();
  if (rt == nullptr) return Status::error(ErrorCode::kUsage, "hvd::init() has not been called");
  try {
    const std::shared_ptr<core::HandleState> h = rt->add_process_set(ranks);
    const Status s = h->wait();
    if (s.ok() && id != nullptr) *id = h->process_set_id;
    return s;
  } catch (...) {
    return Status::from_exception(std::current_exception());
  }
}

Status remove_process_set(int id) {
  core::Runtime* rt = g_runtime.load();
  if (rt == nullptr) return Status::error(ErrorCode::kUsage, "hvd::init() has not been called");
  try {
    return rt->remove_process_set(id)->wait();
  } catch (...) {
    return Status::from_exception(std::current_exception());
  }
}

std::vector<int> process_set_ranks(int id) {
  core::Runtime* rt = g_runtime.load();
  if (rt == nullptr) return {};
  return rt->process_set_ranks(id).value_or(std::vector<int>{});
}

std::vector<int> process_set_ids() {
  core::Runtime* rt = g_runtime.load();
  return rt == nullptr ? std::vector<int>{} : rt->process_set_ids();
}

Status start_timeline(const std::string& path, bool mark_cycles) {
  core::Runtime* rt = g_runtime.load();
  if (rt == nullptr) return Status::error(ErrorCode::kUsage, "hvd::init() has not been called");
  // After a barrier, which the ranks leave at nearly the same moment: the tracks' epoch.
  if (Status s = barrier(0); !s.ok()) return s;
  return rt->start_timeline(path, mark_cycles);
}

Status stop_timeline() {
  core::Runtime* rt = g_runtime.load();
  if (rt == nullptr) return Status::error(ErrorCode::kUsage, "hvd::init() has not been called");
  std::string base;
  bool from_api = false;
  const Status stopped = rt->stop_timeline(&base, &from_api);
  // Every rank's file is complete once the barrier is passed.
  if (Status s = barrier(0); !s.ok()) return s;
  if (!stopped.ok() || !from_api || rt->world().rank != 0) return stopped;
  std::vector<std::string> files;
  for (int r = 0; r < rt->world().size; ++r) {
    files.push_back(core::timeline_rank_path(base, r, rt->timeline_file_tag()));
  }
  try {
    const core::TimelineMergeResult merged = core::merge_timelines(files, base);
    if (!merged.missing.empty()) {
      return Status::error(ErrorCode::kUsage,
                           str_cat("stop_timeline: merged ", merged.merged.size(), " of ",
                                   files.size(), " ranks' timelines into ", base, "; ",
                                   merged.problems.empty() ? "" : merged.problems.front()));
    }
  } catch (...) {
    return Status::from_exception(std::current_exception());
  }
  return Status();
}

int process_set_rank(int id) {
  core::Runtime* rt = g_runtime.load();
  return rt == nullptr ? -1 : rt->process_set_rank(id);
}

Status join(int* last_joined_rank, Device device) {
  core::Runtime* rt = g_runtime.load();
  if (rt == nullptr) return Status::error(ErrorCode::kUsage, "hvd::init() has not been called");
  const TensorView none{nullptr, DataType::kUInt8, {0}, device};
  try {
    const std::shared_ptr<core::HandleState> state = rt->enqueue(
        request(control::kJoinName, control::OpType::kJoin, none), view(none), view(none));
    Status s = state->wait();
    if (s.ok() && last_joined_rank != nullptr) *last_joined_rank = state->last_joined_rank;
    return s;
  } catch (...) {
    return Status::from_exception(std::current_exception());
  }
}

}  // namespace hvd
