// SPDX-License-Identifier: Apache-2.0
#pragma once
// The front door of the bootstrap: who am I, how many are we, and a store to exchange small
// values (addresses, NCCL ids) with the others. A chain of methods, tried in order:
//
//   hvdrun  HOROVOD_* from hvdrun + its rendezvous store (HVD_STORE_ADDR/PORT, HVD_RUN_ID)
//   pmix    PMIx client, when started by srun --mpi=pmix (or another PMIx launcher)
//   mpi     MPI_Init_thread, when started by mpirun / mpiexec
//   single  one process alone, with an in-memory store
//
// Each method's probe reads the environment only, so no library is started unless chosen.
// The first method whose probe applies is started. If it fails, the chain stops there rather
// than trying the next one: the other ranks most likely chose the same method, and a rank
// that fell through to another would wait for peers that never come. HVD_BOOTSTRAP=<name>
// forces one method, started even when its probe says it does not apply.
//
// Errors name every method and why it was not used, one line each, e.g.
//   bootstrap: no method applies to this process:
//     hvdrun: HOROVOD_RANK not set
//     pmix: not built in (configure with -DHVD_WITH_PMIX=ON); PMIX_RANK not set
//     mpi: not started by an MPI launcher (none of OMPI_COMM_WORLD_SIZE, PMI_SIZE, ... is set)
//     single: refused: SLURM_STEP_NUM_TASKS=4 says this process is one of 4 (...)
//   Set HVD_BOOTSTRAP to hvdrun, pmix, mpi, single to force one.
// and, when the chosen method fails, "bootstrap: method 'hvdrun' applies but failed:" with
// "hvdrun: <why it applied>, but failed: <error>" and "<later method>: not tried".

#include <memory>
#include <vector>

#include "bootstrap/bootstrap_method.h"
#include "env/env.h"

namespace hvd::bootstrap {

using MethodChain = std::vector<std::unique_ptr<BootstrapMethod>>;

/// The methods of this build, in the order above. A method that was not built in is a
/// stand-in whose probe never applies and says so.
MethodChain default_chain();

/// Starts the method HVD_BOOTSTRAP names, or else the first of `chain` whose probe applies.
/// Throws ConfigError for a bad HVD_BOOTSTRAP; otherwise the chosen method's failure as
/// TimeoutError or ConfigError when it was one of those, else BootstrapError, with the text
/// described above.
Bootstrapped run_chain(const MethodChain& chain, const EnvMap& env,
                       const BootstrapOptions& options);

/// run_chain(default_chain(), env, options). Collective: every rank calls it once.
Bootstrapped bootstrap(const EnvMap& env, const BootstrapOptions& options);

/// Options from HVD_BOOTSTRAP_TIMEOUT (seconds); ConfigError when it is malformed.
BootstrapOptions bootstrap_options_from_env(const EnvMap& env);

}  // namespace hvd::bootstrap
