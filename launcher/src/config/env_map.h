// SPDX-License-Identifier: Apache-2.0
#pragma once
// EnvMap: an environment as a value. Parsers take one instead of calling getenv, so tests can
// hand them any environment; only main() reads the real one.
//
// hvdrun and libhvd read the environment through one implementation, libs/env/include/env/env.h
// (library hvd_env), and so share one rule: a variable set to the empty string (VAR=) counts as
// unset for every setting a user gives hvdrun or libhvd (HOROVOD_*, HVD_*, PATH, HOME, ...):
// `export HOROVOD_CYCLE_TIME=` clears it, as job scripts expect.
//
// Variables owned by another program keep that program's meaning and are looked up with find():
// CUDA_VISIBLE_DEVICES= means "no GPU" to CUDA (gpu_inventory.cc, task_env.cc), and a SLURM_*
// variable that Slurm set empty is a broken allocation, reported as malformed (allocation.cc).

#include "env/env.h"

namespace hvd::launcher {

using hvd::env_from_array;
using hvd::env_has;
using hvd::env_string;
using hvd::EnvMap;

}  // namespace hvd::launcher
