// SPDX-License-Identifier: Apache-2.0
#pragma once
// libhvd's C++ API, in Horovod's model: every rank enqueues named tensors; a collective runs
// once every rank has enqueued that name (in any order); small tensors are fused. Nothing here
// throws: failures come back as a Status from Handle::wait() or from init()/shutdown().
//
// Names must be unique among the tensors a rank has in flight, and mean the same tensor on
// every rank. Ranks that disagree about a name's dtype, shape, op or root get an error for
// that tensor on every rank; other tensors keep working.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hvd/status.h"
#include "hvd/tensor.h"

namespace hvd {

namespace core {
class HandleState;
}

/// Memory the caller owns and keeps alive until the handle completes. A CUDA tensor (device
/// index >= 0) goes to the NCCL backend (a build with CUDA and NCCL; `hvdrun --check-build` says
/// whether this one has it); its data must be ready when it is enqueued (synchronise the stream
/// that wrote it), and the result is ready on the device when the handle completes. Each rank
/// uses one CUDA device for all its tensors.
struct TensorView {
  void* data = nullptr;
  DataType dtype = DataType::kFloat32;
  std::vector<int64_t> shape;  // {} is a scalar
  Device device;
  size_t count() const;
};

/// An operation in flight. Copyable; all copies see the same completion.
class Handle {
 public:
  Handle() = default;
  explicit Handle(std::shared_ptr<core::HandleState> state) : state_(std::move(state)) {}
  /// Blocks until the operation completed; its outcome.
  Status wait() const;
  /// True once the operation completed (wait() then returns at once).
  bool poll() const;
  /// Allgather and alltoallv: the result, owned by the handle, in host memory (for CUDA inputs
  /// too); valid after wait() returned ok.
  const std::vector<char>& output() const;
  const std::vector<int64_t>& output_shape() const;
  /// alltoallv_async: the rows received from each rank, in rank order; valid after wait().
  const std::vector<int64_t>& received_splits() const;

 private:
  std::shared_ptr<core::HandleState> state_;
};

/// Finds the other ranks (hvdrun's environment, PMIx, MPI or alone), connects, and starts
/// the background thread. Collective. Calling it again after success does nothing.
Status init();
/// Collective: stops the background thread; operations still pending fail.
Status shutdown();
bool initialized();

/// -1 before init().
int rank();
int size();
int local_rank();
int local_size();
int cross_rank();
int cross_size();

// Every collective runs among the ranks of a process set: 0 (the default) is all ranks; others
// come from add_process_set(). Within a set, ranks are numbered by their position in it (a
// broadcast's root is still given as a global rank), and names are per set.

/// out = op over ranks of (prescale * in), times postscale. `in` and `out` may be the same.
Handle allreduce_async(const std::string& name, const TensorView& in, const TensorView& out,
                       ReduceOp op = ReduceOp::kAverage, double prescale = 1.0,
                       double postscale = 1.0, int process_set = 0);
/// Several allreduces that are fused and complete together; one handle per tensor. The scale
/// factors are allreduce_async's, for every tensor of the group.
std::vector<Handle> grouped_allreduce_async(const std::vector<std::string>& names,
                                            const std::vector<TensorView>& in,
                                            const std::vector<TensorView>& out,
                                            ReduceOp op = ReduceOp::kAverage,
                                            double prescale = 1.0, double postscale = 1.0,
                                            int process_set = 0);
/// out = root's in, on every rank. `root` is a global rank, which must be in the set.
Handle broadcast_async(const std::string& name, const TensorView& in, const TensorView& out,
                       int root, int process_set = 0);
/// Concatenates every rank's `in` along the first dimension, which may differ between ranks.
Handle allgather_async(const std::string& name, const TensorView& in, int process_set = 0);
/// Reduces `in` and leaves this rank's block of rows in `out` (the first rows % size ranks get
/// one row more). `in` is scaled by `prescale` in a copy (the caller's input never changes),
/// the block by `postscale`, as allreduce_async's.
Handle reducescatter_async(const std::string& name, const TensorView& in, const TensorView& out,
                           ReduceOp op = ReduceOp::kSum, double prescale = 1.0,
                           double postscale = 1.0, int process_set = 0);
/// Sends block r of `in`'s rows to rank r and receives one block from each, in rank order.
/// Every rank passes the same shape.
Handle alltoall_async(const std::string& name, const TensorView& in, const TensorView& out,
                      int process_set = 0);
/// Sends splits[r] rows of `in` (in order) to rank r and receives every rank's rows for this
/// rank, in rank order, into the handle's output (Handle::output(), output_shape(),
/// received_splits()). Ranks may pass different first dimensions; the rest of the shape must
/// agree. splits has one count per rank, each >= 0, adding up to in's first dimension; a
/// rank that breaks that fails the operation on every rank.
Handle alltoallv_async(const std::string& name, const TensorView& in,
                       const std::vector<int64_t>& splits, int process_set = 0);
/// Returns once every rank of the set has called barrier().
Status barrier(int process_set = 0);

// Process sets (Horovod's dynamic process sets). Adding and removing one is collective over ALL
// ranks, which call it with the same arguments in the same order; the members then connect
// transports of their own (or split the MPI communicator; CUDA tensors get an NCCL
// communicator of the set's own).

/// Creates the set of `ranks` (global ranks, any order, stored sorted) and sets `*id` to its
/// id, the same on every rank. Every rank gets the same error for an empty list, a rank
/// outside the world or given twice, or ranks that already form a set.
Status add_process_set(const std::vector<int>& ranks, int* id);
/// Removes set `id`; its operations still in flight fail. Error for 0 or an unknown id.
Status remove_process_set(int id);
/// The set's global ranks in set order; empty for an unknown id (or before init()).
std::vector<int> process_set_ranks(int id);
/// Every set's id, 0 first; empty before init().
std::vector<int> process_set_ids();
/// This rank's rank within the set; -1 when it is not a member or there is no such set.
int process_set_rank(int id);

/// Collective (every rank calls it): after a barrier, every rank starts writing its timeline
/// (`path` without ".json", plus ".rank<N>.bin", binary records), with the same epoch, as HOROVOD_TIMELINE
/// does. Error when a timeline is being written already (HOROVOD_TIMELINE or an earlier call)
/// or the file cannot be created.
Status start_timeline(const std::string& path, bool mark_cycles = false);
/// Collective: every rank closes its timeline; then, for one started by start_timeline(), rank
/// 0 merges the ranks' files into `path` (one trace, a track group per rank). A timeline from
/// HOROVOD_TIMELINE stops too; hvdrun merges that one when the job ends, as always.
Status stop_timeline();

/// Horovod's hvd.join(): this rank has run out of data. Blocks until every rank has called
/// join(); meanwhile the other ranks' allreduces (every op, host tensors) keep running,
/// with zeros from the ranks that joined without submitting them (kAverage still divides by
/// size()). Other collectives submitted while some rank has joined fail on the ranks that
/// submitted them, naming the joined ranks. On success *last_joined_rank (may be null) is the
/// rank whose join came last; every rank is then active again and join() may be called again.
/// `device` is Horovod's (where zeros would live); only host zeros exist so far, so it is
/// accepted and not used. Call it from one thread at a time.
Status join(int* last_joined_rank, Device device = {});

}  // namespace hvd
