// SPDX-License-Identifier: Apache-2.0
// The probes: which launcher started us, from the environment alone.
#include "bootstrap/launch_probe.h"

#include <doctest/doctest.h>

namespace boot = hvd::bootstrap;
using hvd::EnvMap;

namespace {
const EnvMap kHvdrun = {{"HOROVOD_RANK", "1"},
                        {"HOROVOD_SIZE", "4"},
                        {"HVD_STORE_ADDR", "10.0.0.1"},
                        {"HVD_STORE_PORT", "4000"}};
}  // namespace

TEST_CASE("probe hvdrun: needs the rank facts and the store") {
  const boot::Probe yes = boot::probe_hvdrun(kHvdrun);
  CHECK(yes.applies);
  CHECK(yes.reason == "started by hvdrun (HOROVOD_RANK=1, store 10.0.0.1:4000)");

  CHECK(boot::probe_hvdrun({}).reason == "HOROVOD_RANK not set");
  EnvMap no_size = kHvdrun;
  no_size.erase("HOROVOD_SIZE");
  CHECK(boot::probe_hvdrun(no_size).reason == "HOROVOD_SIZE not set");
  EnvMap no_store = kHvdrun;
  no_store["HVD_STORE_ADDR"] = "";
  const boot::Probe no = boot::probe_hvdrun(no_store);
  CHECK_FALSE(no.applies);
  CHECK(no.reason.find("HVD_STORE_ADDR is not") != std::string::npos);
}

TEST_CASE("probe pmix: PMIX_RANK, except under mpirun when MPI is built in") {
  CHECK_FALSE(boot::probe_pmix({}, true).applies);
  CHECK(boot::probe_pmix({}, true).reason == "PMIX_RANK not set");
  const EnvMap srun = {{"PMIX_RANK", "3"}, {"SLURM_STEP_NUM_TASKS", "4"}};
  CHECK(boot::probe_pmix(srun, true).applies);
  CHECK(boot::probe_pmix(srun, true).reason == "started by a PMIx launcher (PMIX_RANK=3)");
  const EnvMap mpirun = {{"PMIX_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}};
  CHECK_FALSE(boot::probe_pmix(mpirun, true).applies);
  CHECK(boot::probe_pmix(mpirun, true).reason.find("left to the mpi method") != std::string::npos);
  CHECK(boot::probe_pmix(mpirun, false).applies);
}

TEST_CASE("probe mpi: any MPI launcher's variable") {
  const boot::Probe none = boot::probe_mpi({{"HOROVOD_RANK", "0"}});
  CHECK_FALSE(none.applies);
  CHECK(none.reason ==
        "not started by an MPI launcher (none of OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMI_RANK, "
        "PMIX_RANK, MV2_COMM_WORLD_SIZE is set)");
  CHECK(boot::probe_mpi({{"OMPI_COMM_WORLD_SIZE", "2"}}).reason ==
        "started by an MPI launcher (OMPI_COMM_WORLD_SIZE=2)");
  CHECK(boot::probe_mpi({{"PMI_RANK", "0"}}).applies);
  CHECK(boot::probe_mpi({{"PMIX_RANK", "0"}}).applies);
  CHECK(boot::probe_mpi({{"MV2_COMM_WORLD_SIZE", "8"}}).applies);
}

TEST_CASE("probe single: refused when a variable counts other ranks") {
  CHECK(boot::probe_single({}).applies);
  CHECK(boot::probe_single({{"HOROVOD_SIZE", "1"}, {"SLURM_STEP_NUM_TASKS", "1"}}).applies);
  const boot::Probe many = boot::probe_single({{"SLURM_STEP_NUM_TASKS", "4"}});
  CHECK_FALSE(many.applies);
  CHECK(many.reason.find("refused: SLURM_STEP_NUM_TASKS=4 says this process is one of 4") == 0);
  CHECK_FALSE(boot::probe_single({{"WORLD_SIZE", "2"}}).applies);
  CHECK_FALSE(boot::probe_single(kHvdrun).applies);
  CHECK(boot::probe_single({{"HOROVOD_SIZE", "many"}}).applies);  // no evidence either way
}
