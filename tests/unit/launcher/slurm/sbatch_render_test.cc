// SPDX-License-Identifier: Apache-2.0
#include "slurm/sbatch_render.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "hvd/error.h"

namespace slurm = hvd::launcher::slurm;
namespace profile = hvd::launcher::profile;

namespace {
std::string default_template() {
  std::ifstream in(std::string(HVD_SOURCE_DIR) + "/templates/sbatch/default.sbatch.mustache");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
profile::SiteProfile site() {
  profile::SiteProfile p;
  p.name = "site";
  p.source = "/etc/site.yaml";
  p.account_required = true;
  p.constraint = "gpu";
  p.qos = "regular";
  p.gpus_per_node = 4;
  p.gpu_vendor = "nvidia";
  p.gpu_request = "--gpus-per-node={gpu_type}:{gpus}";
  p.gpu_type = "A100";
  p.cpus_per_task = 32;
  p.directives = {{"--comment=pytorch", "the site rejects jobs without --comment"}};
  p.modules = {"gpu", "nccl/2.28"};
  p.env = {{"FI_MR_CACHE_MONITOR", "userfaultfd", "avoids hangs in the memory cache", true},
           {"NCCL_NET", "AWS Libfabric", "use the libfabric plugin", false}};
  p.partitions = {{"short", "02:00:00", 4, -1}};
  return p;
}
slurm::BatchRequest request() {
  slurm::BatchRequest r;
  r.nodes = 2;
  r.time = "01:00:00";
  r.account = "m1234";
  r.signal_lead_seconds = 120;
  r.launch = {"/opt/bin/hvdrun", "--profile", "/etc/site.yaml", "--", "python3", "train.py", "a b"};
  return r;
}
}  // namespace

TEST_CASE("sbatch_render: directives, modules, commented environment and one launch line") {
  const std::string script = slurm::render_batch_script(request(), site(), default_template(), "t");
  for (const char* line :
       {"#!/bin/bash\n", "#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=4  # one rank per GPU\n",
        "#SBATCH --time=01:00:00\n", "#SBATCH --account=m1234\n", "#SBATCH --qos=regular\n",
        "#SBATCH --constraint=gpu\n", "#SBATCH --gpus-per-node=A100:4  # the GPU request syntax of site\n",
        "#SBATCH --cpus-per-task=32\n",
        "#SBATCH --comment=pytorch  # the site rejects jobs without --comment\n",
        "#SBATCH --signal=B:USR2@120  # preemption notice", "module load nccl/2.28\n",
        "# avoids hangs in the memory cache\nexport FI_MR_CACHE_MONITOR=userfaultfd\n",
        "# use the libfabric plugin [unconfirmed]\nexport NCCL_NET='AWS Libfabric'\n",
        "exec /opt/bin/hvdrun --profile /etc/site.yaml -- python3 train.py 'a b'\n"}) {
    CHECK_MESSAGE(script.find(line) != std::string::npos, "missing: ", line, "\nin:\n", script);
  }
  // The known traps: no --export line, no frozen rank variables in the batch body.
  CHECK(script.find("#SBATCH --export") == std::string::npos);
  CHECK(script.find("SLURM_PROCID") == std::string::npos);
  CHECK(script.find("&#") == std::string::npos);  // no HTML escaping in a shell script
}

TEST_CASE("sbatch_render: requests that cannot work are refused") {
  slurm::BatchRequest r = request();
  r.account.clear();
  CHECK_THROWS_WITH_AS(slurm::check_batch_request(r, site()),
                       "profile site requires an account: pass -A/--account PROJECT",
                       hvd::UsageError);
  r = request();
  r.gpus_per_node = 8;
  CHECK_THROWS_WITH_AS(slurm::check_batch_request(r, site()),
                       "--gpus-per-node 8: site nodes have 4 GPU(s)", hvd::UsageError);
  r = request();
  r.partition = "short";
  r.time = "03:00:00";
  CHECK_THROWS_WITH_AS(slurm::check_batch_request(r, site()),
                       "-t 03:00:00 is over the 02:00:00 limit of partition short; ask for less time",
                       hvd::UsageError);
  r.time = "01:00:00";
  r.nodes = 5;
  CHECK_THROWS_AS(slurm::check_batch_request(r, site()), hvd::UsageError);
  r = request();
  r.time = "soon";
  CHECK_THROWS_AS(slurm::check_batch_request(r, site()), hvd::UsageError);
  slurm::check_batch_request(request(), site());
}

TEST_CASE("sbatch_render: a broken user template is a ConfigError naming it") {
  CHECK_THROWS_WITH_AS(slurm::render_batch_script(request(), site(), "{{#open}} never closed", "my.tmpl"),
                       doctest::Contains("my.tmpl: template error"), hvd::ConfigError);
}
