// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every environment variable that passes between hvdrun and the ranks: the ONLY contract
// between the launcher and the runtime. hvdrun also sets the names that other frameworks read
// (Horovod's HOROVOD_*, torch.distributed's RANK/WORLD_SIZE/...), so that programs that are
// not ours run under it unchanged; libhvd reads the HOROVOD_* names too.

namespace hvd::env {

// Rank identity, Horovod's names (horovod/runner/gloo_run.py).
inline constexpr const char* kRank = "HOROVOD_RANK";
inline constexpr const char* kSize = "HOROVOD_SIZE";
inline constexpr const char* kLocalRank = "HOROVOD_LOCAL_RANK";
inline constexpr const char* kLocalSize = "HOROVOD_LOCAL_SIZE";
inline constexpr const char* kCrossRank = "HOROVOD_CROSS_RANK";
inline constexpr const char* kCrossSize = "HOROVOD_CROSS_SIZE";
inline constexpr const char* kHostname = "HOROVOD_HOSTNAME";

// Rank identity, torch.distributed's names (torch/distributed/run.py).
inline constexpr const char* kTorchRank = "RANK";
inline constexpr const char* kTorchWorldSize = "WORLD_SIZE";
inline constexpr const char* kTorchLocalRank = "LOCAL_RANK";
inline constexpr const char* kTorchLocalWorldSize = "LOCAL_WORLD_SIZE";
inline constexpr const char* kTorchGroupRank = "GROUP_RANK";
inline constexpr const char* kTorchMasterAddr = "MASTER_ADDR";
inline constexpr const char* kTorchMasterPort = "MASTER_PORT";

// The rendezvous key-value store that hvdrun hosts for the run (libs/store/).
inline constexpr const char* kStoreAddr = "HVD_STORE_ADDR";
inline constexpr const char* kStorePort = "HVD_STORE_PORT";
/// Unique per run; prefixes the run's keys so that stale clients cannot collide.
inline constexpr const char* kRunId = "HVD_RUN_ID";
/// 256 random bits as hex, drawn by hvdrun for every run (auth/run_secret.h). Every connection
/// to the store and between ranks proves knowledge of it. Passed only through the environment.
inline constexpr const char* kRunSecret = "HVD_RUN_SECRET";

// Restarts (--max-restarts), torchrun's names (torch/distributed/elastic/agent/server/
// local_elastic_agent.py): which attempt this is (0 first, +1 per restart of the whole job) and
// how many restarts the job may use. A program resumes from its checkpoint when the count > 0.
inline constexpr const char* kRestartCount = "TORCHELASTIC_RESTART_COUNT";
inline constexpr const char* kMaxRestarts = "TORCHELASTIC_MAX_RESTARTS";
// torchrun's error file (torch/distributed/elastic/multiprocessing/errors): when the user sets it
// for hvdrun, each rank gets a file of its own under the hvdrun-made folder kRankErrorDir (a
// program decorated with @record writes its exception there), and hvdrun writes the first
// failed rank's error to the user's file in torchrun's error.json format.
inline constexpr const char* kTorchElasticErrorFile = "TORCHELASTIC_ERROR_FILE";
inline constexpr const char* kRankErrorDir = "HVD_RANK_ERROR_DIR";

// Preemption (launcher/src/exec/requeue.h). A file that hvdrun (or exec-rank, on each node of a
// Slurm step) creates when SIGUSR1/SIGUSR2, a preemption notice, arrives: a program that sees
// it should checkpoint and exit 0. And, in a Slurm step, how often the job has been requeued
// (SLURM_RESTART_COUNT, 0 when Slurm has not set it).
inline constexpr const char* kCheckpointFile = "HVD_CHECKPOINT_FILE";
inline constexpr const char* kRequeueCount = "HVD_REQUEUE_COUNT";

// Diagnostics (hvdrun why, hvd/why_protocol.h): a folder of the user's own (0700) that hvdrun
// makes for the job, where each rank's Python stack dump lands as py.<rank> on the why signal.
inline constexpr const char* kWhyDir = "HVD_WHY_DIR";

// Binding decided by hvdrun, for programs that want to report or check it.
inline constexpr const char* kCpuList = "HVD_CPU_LIST";

// Tunables, Horovod's names and units (horovod/common/utils/env_parser.cc).
inline constexpr const char* kFusionThreshold = "HOROVOD_FUSION_THRESHOLD";  // bytes
/// Milliseconds: the longest an idle background loop waits between cycles; an enqueue starts
/// the next cycle at once (core/runtime.cc, Runtime::wait_for_work).
inline constexpr const char* kCycleTime = "HOROVOD_CYCLE_TIME";
inline constexpr const char* kCacheCapacity = "HOROVOD_CACHE_CAPACITY";
inline constexpr const char* kHierarchicalAllreduce = "HOROVOD_HIERARCHICAL_ALLREDUCE";
inline constexpr const char* kTimeline = "HOROVOD_TIMELINE";
/// HOROVOD_TIMELINE's value for "no file now": Horovod's start_timeline() starts one at run time.
inline constexpr const char* kTimelineDynamic = "DYNAMIC";
inline constexpr const char* kTimelineMarkCycles = "HOROVOD_TIMELINE_MARK_CYCLES";
/// Random hex digits hvdrun draws once per job with a timeline: part of each rank's timeline
/// file name (timeline/timeline_merge.h), so that nobody can plant a file at that name before the
/// rank makes it. Set by hvdrun only; without it the names are Horovod-like and predictable.
inline constexpr const char* kTimelineTag = "HVD_TIMELINE_TAG";
inline constexpr const char* kStallCheckDisable = "HOROVOD_STALL_CHECK_DISABLE";
inline constexpr const char* kStallCheckTime = "HOROVOD_STALL_CHECK_TIME_SECONDS";
inline constexpr const char* kStallShutdownTime = "HOROVOD_STALL_SHUTDOWN_TIME_SECONDS";
inline constexpr const char* kLogLevel = "HOROVOD_LOG_LEVEL";
/// Every this many optimizer steps, hvdrun.torch's DistributedOptimizer and hvd-train compare a
/// digest of the ranks' parameters and fail (exit code 6) when they differ; unset or 0: never.
/// Set by hvdrun --verify-every N, or directly (horovodrun, mpirun).
inline constexpr const char* kVerifyEvery = "HVD_VERIFY_EVERY";

// Read by hvdrun itself: extra folders of site profiles, colon-separated.
inline constexpr const char* kProfilePath = "HVDRUN_PROFILE_PATH";

// Variables hvdrun sets for third-party libraries and runtimes.
inline constexpr const char* kOmpNumThreads = "OMP_NUM_THREADS";
inline constexpr const char* kPythonUnbuffered = "PYTHONUNBUFFERED";
// hvdrun prepends its Python packages (hvdrun.torch; with --horovod-compat the horovod shim).
inline constexpr const char* kPythonPath = "PYTHONPATH";
inline constexpr const char* kCudaVisibleDevices = "CUDA_VISIBLE_DEVICES";
/// Set to PCI_BUS_ID when hvdrun numbers the GPUs itself, so ids mean the same to CUDA.
inline constexpr const char* kCudaDeviceOrder = "CUDA_DEVICE_ORDER";
/// TensorFlow's cluster description (MultiWorkerMirroredStrategy); only with --tf-config.
inline constexpr const char* kTfConfig = "TF_CONFIG";
/// torch's gloo backend binds to this interface; exec-rank sets the one that routes to
/// MASTER_ADDR when the user has not (launcher/src/slurm/route_interface.h).
inline constexpr const char* kGlooSocketIfname = "GLOO_SOCKET_IFNAME";

// The runtime's bootstrap (runtime/src/bootstrap/): how a rank finds the others.
/// hvdrun | pmix | mpi | single forces that method; unset, empty or "auto" tries them in order.
inline constexpr const char* kBootstrap = "HVD_BOOTSTRAP";
/// Seconds the bootstrap waits for the other ranks (store connection, exchanges); default 120.
inline constexpr const char* kBootstrapTimeout = "HVD_BOOTSTRAP_TIMEOUT";
/// Which transport the built-in ring uses: auto (shared memory when every rank is on one host,
/// else TCP), shm or tcp.
inline constexpr const char* kRingTransport = "HVD_RING_TRANSPORT";
/// The address of this host that the TCP ring listens on and tells the other ranks, for hosts
/// where hvdrun's store gives none (PMIx, MPI bootstraps) and no route to another host of the
/// job shows one (runtime/src/transport/tcp/listen_address.h).
inline constexpr const char* kRingAddress = "HVD_RING_ADDRESS";
/// Which backend moves host tensors: auto (today the ring), ring, or mpi (needs a build with
/// -DHVD_WITH_MPI=ON and ranks started by mpirun / srun --mpi=pmix). Control traffic always
/// stays on the ring's transport.
inline constexpr const char* kBackend = "HVD_BACKEND";

// Set by other launchers. Only the bootstrap's probes read them, to choose a method without
// starting any library.
inline constexpr const char* kPmixRank = "PMIX_RANK";            // srun --mpi=pmix, prterun, mpirun
inline constexpr const char* kPmixNamespace = "PMIX_NAMESPACE";
inline constexpr const char* kOmpiWorldSize = "OMPI_COMM_WORLD_SIZE";  // Open MPI's mpirun
inline constexpr const char* kPmiSize = "PMI_SIZE";   // MPICH/Hydra, Cray PMI, srun --mpi=pmi2
inline constexpr const char* kPmiRank = "PMI_RANK";
inline constexpr const char* kMvapichWorldSize = "MV2_COMM_WORLD_SIZE";
inline constexpr const char* kSlurmStepNumTasks = "SLURM_STEP_NUM_TASKS";  // tasks of an srun step

// The GPU lane (runtime/src/backends/nccl/).
/// Seconds a CUDA-tensor collective (and the NCCL communicator's creation) may take before the
/// communicator is aborted and the call fails; default 60.
inline constexpr const char* kNcclTimeout = "HVD_NCCL_TIMEOUT";

}  // namespace hvd::env
