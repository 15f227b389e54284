// SPDX-License-Identifier: Apache-2.0
#pragma once
// The runtime scenarios (--scenario), each timed through libhvd's public API and, when MPI is
// running, against raw MPI on the same ranks in the same process:
//   fusion          a step of N tensors of B bytes, each its own allreduce_async (as a
//                   framework's gradient hooks submit them), then the same as one grouped
//                   allreduce, against one MPI_Allreduce of the N*B bytes concatenated. Run it
//                   again with HOROVOD_FUSION_THRESHOLD=0 (a separate process: tunables are
//                   read at init) for the unfused time.
//   cache           an 8-byte allreduce repeated with one name, so every cycle after the first
//                   is served from the response cache, against an 8-byte MPI_Allreduce: waited
//                   on (the waiting thread runs the cycle) and polled (the background loop
//                   runs it and hands the result back).
//   timeline        the fusion step with and without a timeline, in rounds alternating in
//                   one process (timeline_scenario.cc).
//   runtime-vs-raw  the allreduce table at --layer runtime with the MPI peer, summarised as
//                   time ratios.
// Each returns its JSON object (the "scenarios" member) and prints one summary line on rank 0.

#include <nlohmann/json.hpp>
#include <ostream>

#include "bench/bench_options.h"
#include "bench/collective_impl.h"
#include "bench/measure.h"

namespace hvd::bench {

/// `runtime` is the hvd runtime implementation; `mpi` the MPI peer or null. Collective.
nlohmann::json run_fusion(const Options& options, Impl& runtime, Impl* mpi, std::ostream* out);
nlohmann::json run_cache(const Options& options, Impl& runtime, Impl* mpi, std::ostream* out);
nlohmann::json run_timeline(const Options& options, Impl& runtime, std::ostream* out);
/// From an allreduce table measured with the runtime and the MPI peer.
nlohmann::json summarize_runtime_vs_raw(const OpResult& allreduce, std::ostream* out);

}  // namespace hvd::bench
