// SPDX-License-Identifier: Apache-2.0
// The one rule for VAR= shared by hvdrun and libhvd (config/env_map.h over env/env.h): a
// variable set to the empty string counts as unset for every setting a user gives hvdrun, and
// keeps its owner's meaning where another program owns it (CUDA_VISIBLE_DEVICES= is "no GPU").
#include <doctest/doctest.h>

#include <unistd.h>

#include "binding/gpu_inventory.h"
#include "config/env_map.h"
#include "config/tunables_from_env.h"
#include "plan/task_env.h"
#include "proc/program_lookup.h"

using hvd::launcher::EnvMap;
namespace launcher = hvd::launcher;

TEST_CASE("env_map: VAR= counts as unset, as in libhvd") {
  const EnvMap env = {{"EMPTY", ""}, {"SET", "v"}};
  CHECK_FALSE(launcher::env_has(env, "EMPTY"));
  CHECK(launcher::env_string(env, "EMPTY", "fallback") == "fallback");
  CHECK(launcher::env_string(env, "SET", "fallback") == "v");
  CHECK(launcher::env_string(env, "MISSING", "fallback") == "fallback");
}

TEST_CASE("env_map: an empty HOROVOD_* tunable keeps the value from the layers below") {
  launcher::config::Tunables t;
  t.cycle_time_ms = 3;
  t.hierarchical_allreduce = true;  // as a profile or config file may set it
  t.timeline_filename = "from-profile.json";
  // Before the unification HOROVOD_CYCLE_TIME= failed ("'' is not a number") and an empty flag
  // or file name overrode the profile.
  launcher::config::apply_environment(t, {{"HOROVOD_CYCLE_TIME", ""},
                                          {"HOROVOD_HIERARCHICAL_ALLREDUCE", ""},
                                          {"HOROVOD_TIMELINE", ""}});
  CHECK(t.cycle_time_ms == 3);
  CHECK(t.hierarchical_allreduce);
  CHECK(t.timeline_filename == "from-profile.json");
}

TEST_CASE("env_map: PATH= searches the default PATH, as an unset PATH does") {
  const auto found = launcher::proc::find_in_path("sh", {{"PATH", ""}});
  REQUIRE(found.has_value());
  CHECK(access(found->c_str(), X_OK) == 0);
}

TEST_CASE("env_map: CUDA_VISIBLE_DEVICES= still means no GPU, as CUDA reads it") {
  // Owned by CUDA, so looked up as is: the empty value is a value.
  CHECK(launcher::plan::visible_gpus("CUDA_VISIBLE_DEVICES",
                                      {{"CUDA_VISIBLE_DEVICES", ""}, {"SLURM_GPUS_ON_NODE", "2"}})
            .empty());
  CHECK(launcher::binding::find_gpus({{"CUDA_VISIBLE_DEVICES", ""}}, "/nonexistent").empty());
}
