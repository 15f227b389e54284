// SPDX-License-Identifier: Apache-2.0
#include "cli/horovodrun_only.h"

#include <map>

namespace hvd::launcher::cli {
namespace {

constexpr const char* kNoSsh = "hvdrun starts no ssh (it runs ranks here or through srun)";
constexpr const char* kElastic =
    "hvdrun runs a fixed set of ranks: give -np (scripts that use hvd.elastic run unchanged on "
    "it; a job that loses a rank ends, and --max-restarts or a Slurm requeue continues it)";
constexpr const char* kAutotune =
    "hvdrun has no autotuner: set --fusion-threshold-mb and --cycle-time-ms";
constexpr const char* kInterface =
    "hvdrun's TCP ring uses the address each rank reaches the launching host from (the "
    "interface that routes there); for NCCL, export NCCL_SOCKET_IFNAME=IFACE instead";

const std::map<std::string, HorovodrunOnlyOption>& table() {
  static const std::map<std::string, HorovodrunOnlyOption> options = {
      {"--gloo",
       {0, true, "hvdrun's own TCP/shared-memory transport, Gloo's part, is the default"}},
      {"--disable-cache", {0, true, "hvdrun keeps no cache of host checks"}},
      {"-p", {1, true, kNoSsh}},
      {"--ssh-port", {1, true, kNoSsh}},
      {"-i", {1, true, kNoSsh}},
      {"--ssh-identity-file", {1, true, kNoSsh}},
      {"--log-hide-timestamp", {0, true, "hvdrun's messages carry no timestamp"}},
      {"--start-timeout",
       {1, false,
        "export HVD_BOOTSTRAP_TIMEOUT=SECONDS instead (how long ranks wait "
        "for each other at start; default 120)"}},
      {"--gloo-timeout-seconds", {1, false, "export HVD_BOOTSTRAP_TIMEOUT=SECONDS instead"}},
      {"--network-interface", {1, false, kInterface}},
      {"--nics", {1, false, kInterface}},
      {"--tcp",
       {0, false,
        "hvdrun uses TCP between hosts and shared memory within one; to force TCP "
        "everywhere, export HVD_RING_TRANSPORT=tcp"}},
      {"--mpi-args",
       {1, false,
        "hvdrun writes the mpirun line itself under --mpi (--dry-run shows it); "
        "give MPI settings as OMPI_MCA_* variables"}},
      {"--jsm", {0, false, "hvdrun launches on this machine or inside Slurm, not with jsrun"}},
      {"--mpi-threads-disable",
       {0, false,
        "libhvd needs MPI_THREAD_MULTIPLE under HVD_BACKEND=mpi; leave "
        "the flag out"}},
      {"--num-nccl-streams", {1, false, "libhvd runs NCCL on one stream per device; leave it out"}},
      {"--thread-affinity", {1, false, "pin ranks with --bind-to core|numa|none"}},
      {"--binding-args", {1, false, "pin ranks with --bind-to core|numa|none"}},
      {"--hierarchical-allgather",
       {0, false, "libhvd has no hierarchical allgather; leave it out"}},
      {"--no-hierarchical-allgather", {0, true, "libhvd's allgather is never hierarchical"}},
      {"--autotune", {0, false, kAutotune}},
      {"--autotune-log-file", {1, false, kAutotune}},
      {"--autotune-warmup-samples", {1, false, kAutotune}},
      {"--autotune-steps-per-sample", {1, false, kAutotune}},
      {"--autotune-bayes-opt-max-samples", {1, false, kAutotune}},
      {"--autotune-gaussian-process-noise", {1, false, kAutotune}},
      {"--min-np", {1, false, kElastic}},
      {"--max-np", {1, false, kElastic}},
      {"-s", {1, false, kElastic}},
      {"--slots", {1, false, kElastic}},
      {"--slots-per-host", {1, false, kElastic}},
      {"--host-discovery-script", {1, false, kElastic}},
      {"--elastic-timeout", {1, false, kElastic}},
      {"--reset-limit", {1, false, kElastic}},
      {"--blacklist-cooldown-range", {2, false, kElastic}},
      {"--cooldown-range", {2, false, kElastic}},
  };
  return options;
}

}  // namespace

const HorovodrunOnlyOption* find_horovodrun_only(const std::string& name) {
  const auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

}  // namespace hvd::launcher::cli
