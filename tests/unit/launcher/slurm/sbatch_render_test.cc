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

TEST_CASE("sbatch_render: --requeue-on-signal asks for the signal, requeue and an appended log") {
  slurm::BatchRequest r = request();
  CHECK(slurm::render_batch_script(r, site(), default_template(), "t").find("--requeue") ==
        std::string::npos);
  r.requeue_on_signal = true;
  const std::string script = slurm::render_batch_script(r, site(), default_template(), "t");
  for (const char* line :
       {"#SBATCH --signal=B:USR2@120  # preemption notice",
        "#SBATCH --requeue  # hvdrun requeues the job once every rank has checkpointed\n",
        "#SBATCH --open-mode=append  # a requeued job adds to its log instead of emptying it\n",
        "# On SIGUSR2 the ranks checkpoint and exit (HVD_CHECKPOINT_FILE appears)"}) {
    CHECK_MESSAGE(script.find(line) != std::string::npos, "missing: ", line, "\nin:\n", script);
  }
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

namespace {

// The arguments sbatch reads from one "#SBATCH ..." line, as src/sbatch/opt.c (_get_argument)
// splits them: whitespace separates, '...' and "..." group (quotes dropped), a backslash takes
// the next character literally, and an unquoted '#' ends the line.
std::vector<std::string> sbatch_words(const std::string& line) {
  std::vector<std::string> words;
  size_t i = std::string("#SBATCH").size();
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size() || line[i] == '#') break;
    std::string word;
    char quote = 0;
    for (; i < line.size() && (quote != 0 || line[i] != ' '); ++i) {
      const char c = line[i];
      if (c == '\\' && i + 1 < line.size()) {
        word += line[++i];
      } else if (quote != 0 && c == quote) {
        quote = 0;
      } else if (quote == 0 && (c == '"' || c == '\'')) {
        quote = c;
      } else if (quote == 0 && c == '#') {
        break;
      } else {
        word += c;
      }
    }
    words.push_back(word);
    if (i < line.size() && line[i] == '#') break;
  }
  return words;
}

std::vector<std::string> script_lines(const std::string& script) {
  std::vector<std::string> lines;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

// Issue 10: a newline in -J, -A, -q, --partition, --log or --sbatch-arg put a shell line into the
// script (bash -n accepted it; sbatch dropped the directives after it).
TEST_CASE("sbatch_render: a control character in a flag's value is refused, naming the flag") {
  struct Case {
    const char* flag;
    std::string slurm::BatchRequest::*field;
  };
  const Case cases[] = {{"-J/--job-name", &slurm::BatchRequest::job_name},
                        {"-A/--account", &slurm::BatchRequest::account},
                        {"-q/--qos", &slurm::BatchRequest::qos},
                        {"-p/--partition", &slurm::BatchRequest::partition},
                        {"--log", &slurm::BatchRequest::log_file}};
  for (const Case& c : cases) {
    CAPTURE(c.flag);
    slurm::BatchRequest r = request();
    r.*c.field = "x\ntouch /tmp/pwned";
    const std::string says = std::string(c.flag) + ": the value holds a newline at offset 1";
    CHECK_THROWS_WITH_AS(slurm::check_batch_request(r, site()), doctest::Contains(says.c_str()),
                         hvd::UsageError);
    CHECK_THROWS_WITH_AS(slurm::render_batch_script(r, site(), default_template(), "t"),
                         doctest::Contains(says.c_str()), hvd::UsageError);
  }
  slurm::BatchRequest r = request();
  r.extra_directives = {"--mail-type=END", "--comment=a\rb"};
  CHECK_THROWS_WITH_AS(slurm::check_batch_request(r, site()),
                       doctest::Contains("--sbatch-arg: the value holds a carriage return at "
                                         "offset 11"),
                       hvd::UsageError);
}

TEST_CASE(
    "sbatch_render: a profile's module, reason or flag that would make a shell line is refused") {
  profile::SiteProfile p = site();
  p.modules = {"gcc; echo pwned"};
  CHECK_THROWS_WITH_AS(
      slurm::render_batch_script(request(), p, default_template(), "t"),
      doctest::Contains("setup.modules[0]: 'gcc; echo pwned' is not a module name"),
      hvd::ConfigError);
  p = site();
  p.env[1].reason = "fine\necho pwned";
  CHECK_THROWS_WITH_AS(slurm::render_batch_script(request(), p, default_template(), "t"),
                       doctest::Contains("profile site (/etc/site.yaml): env[1].reason holds a "
                                         "newline at offset 4"),
                       hvd::ConfigError);
  p = site();
  p.directives[0].flag = "--comment=x\necho pwned";
  CHECK_THROWS_WITH_AS(slurm::render_batch_script(request(), p, default_template(), "t"),
                       doctest::Contains("scheduler.directives[0].flag holds a newline"),
                       hvd::ConfigError);
}

// Issue 10: a space in a directive value went in unquoted, so sbatch read two arguments.
TEST_CASE("sbatch_render: each directive is one argument as sbatch's #SBATCH parser reads it") {
  slurm::BatchRequest r = request();
  r.job_name = "my job #1 \"quoted\" it's \\ done";
  r.log_file = "/scratch/my runs/%j.out";
  r.extra_directives = {"--comment=two words", "--mail-type=END"};
  profile::SiteProfile p = site();
  p.constraint = "a100&ib";
  const std::string script = slurm::render_batch_script(r, p, default_template(), "t");
  std::vector<std::string> parsed;
  for (const std::string& line : script_lines(script)) {
    if (line.rfind("#SBATCH", 0) != 0) continue;
    const std::vector<std::string> words = sbatch_words(line);
    CHECK_MESSAGE(words.size() == 1, line);
    if (!words.empty()) parsed.push_back(words.front());
  }
  std::vector<std::string> expected;
  for (const auto& [flag, reason] : slurm::batch_directives(r, p)) expected.push_back(flag);
  CHECK(parsed == expected);
  CHECK(script.find("#SBATCH \"--job-name=my job #1 \\\"quoted\\\" it's \\\\ done\"\n") !=
        std::string::npos);
  CHECK(script.find("#SBATCH --mail-type=END  # from --sbatch-arg\n") != std::string::npos);
  CHECK(script.find("#SBATCH --nodes=2\n") != std::string::npos);  // plain values stay plain
}

TEST_CASE("sbatch_render: --preflight runs hvdrun preflight --strict before the program") {
  slurm::BatchRequest r = request();
  CHECK(slurm::render_batch_script(r, site(), default_template(), "t").find("preflight") ==
        std::string::npos);
  r.preflight = {"/opt/bin/hvdrun", "preflight", "--strict", "--profile", "/etc/site.yaml"};
  const std::string script = slurm::render_batch_script(r, site(), default_template(), "t");
  const std::string line =
      "/opt/bin/hvdrun preflight --strict --profile /etc/site.yaml --json "
      "\"hvdrun-preflight-${SLURM_JOB_ID}.json\"\n";
  const size_t at = script.find(line);
  REQUIRE_MESSAGE(at != std::string::npos, script);
  // Before the program, under set -e, so that a flagged node stops the job there.
  CHECK(at < script.find("exec /opt/bin/hvdrun --profile"));
  CHECK(script.find("set -euo pipefail") < at);
  // A template of one's own without {{preflight}} is refused, not rendered without the check.
  CHECK_THROWS_WITH_AS(slurm::render_batch_script(r, site(), "#!/bin/bash\nexec {{launch}}\n", "mine.mustache"),
                       "mine.mustache: --preflight needs {{preflight}} in the template, before the "
                       "launch line (see the default template)",
                       hvd::ConfigError);
}
