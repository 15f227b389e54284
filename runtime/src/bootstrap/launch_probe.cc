// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/launch_probe.h"

#include <vector>

#include "hvd/env_keys.h"
#include "hvd/str_cat.h"

namespace hvd::bootstrap {
namespace {

// "A=1" for the first of `keys` that is set, "" when none is.
std::string first_set(const EnvMap& env, const std::vector<const char*>& keys) {
  for (const char* key : keys) {
    if (env_has(env, key)) return str_cat(key, "=", env.at(key));
  }
  return {};
}

std::string joined(const std::vector<const char*>& keys) {
  std::string text;
  for (const char* key : keys) text += str_cat(text.empty() ? "" : ", ", key);
  return text;
}

}  // namespace

Probe probe_hvdrun(const EnvMap& env) {
  for (const char* key : {env::kRank, env::kSize}) {
    if (!env_has(env, key)) return {false, str_cat(key, " not set")};
  }
  for (const char* key : {env::kStoreAddr, env::kStorePort}) {
    if (!env_has(env, key)) {
      return {false, str_cat(env::kRank, " is set but ", key,
                             " is not (started by hvdrun exec-rank without hvdrun's store?)")};
    }
  }
  return {true, str_cat("started by hvdrun (", env::kRank, "=", env.at(env::kRank), ", store ",
                        env.at(env::kStoreAddr), ":", env.at(env::kStorePort), ")")};
}

Probe probe_pmix(const EnvMap& env, bool mpi_built_in) {
  if (!env_has(env, env::kPmixRank)) return {false, str_cat(env::kPmixRank, " not set")};
  if (mpi_built_in && env_has(env, env::kOmpiWorldSize)) {
    return {false, str_cat(env::kPmixRank, " is set, but ", env::kOmpiWorldSize,
                           " says mpirun started this process: left to the mpi method")};
  }
  return {true, str_cat("started by a PMIx launcher (", env::kPmixRank, "=", env.at(env::kPmixRank),
                        ")")};
}

Probe probe_mpi(const EnvMap& env) {
  const std::vector<const char*> keys = {env::kOmpiWorldSize, env::kPmiSize, env::kPmiRank,
                                         env::kPmixRank, env::kMvapichWorldSize};
  const std::string hit = first_set(env, keys);
  if (hit.empty()) {
    return {false, str_cat("not started by an MPI launcher (none of ", joined(keys), " is set)")};
  }
  return {true, str_cat("started by an MPI launcher (", hit, ")")};
}

Probe probe_single(const EnvMap& env) {
  for (const char* key : {env::kSize, env::kTorchWorldSize, env::kOmpiWorldSize, env::kPmiSize,
                          env::kMvapichWorldSize, env::kSlurmStepNumTasks}) {
    // A malformed count is no evidence either way; the method that reads it will complain.
    const std::string text = env_string(env, key, "1");
    if (text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9) continue;
    const long count = std::stol(text);
    if (count > 1) {
      return {false, str_cat("refused: ", key, "=", text, " says this process is one of ", count,
                             " (as single processes, each would silently compute alone)")};
    }
  }
  return {true, "no launcher variables say there are other ranks"};
}

}  // namespace hvd::bootstrap
