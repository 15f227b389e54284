// SPDX-License-Identifier: Apache-2.0
#include "profile/profile_loader.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "hvd/error.h"
#include "profile/embedded_local.h"

namespace profile = hvd::launcher::profile;
namespace fs = std::filesystem;

namespace {

const std::string kChain = HVD_TEST_DATA_DIR "/profiles/chain";
const std::string kShipped = HVD_SOURCE_DIR "/site-profiles";

// Resolves `extends:` to NAME.yaml in `dir`, as the catalog does for siblings.
profile::ProfileResolver sibling_resolver(const std::string& dir) {
  return [dir](const std::string& name) {
    std::string path = dir + "/" + name + ".yaml";
    if (!fs::exists(path)) throw hvd::ConfigError("no site profile named '" + name + "'");
    return path;
  };
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const hvd::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string load_error(const std::string& path) {
  return error_of([&] { profile::load_profile_file(path, sibling_resolver(kChain)); });
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A folder of generated profiles, removed at the end of the test.
class ProfileScratch {
 public:
  ProfileScratch()
      : dir_(fs::temp_directory_path() / ("hvd_profile_test_" + std::to_string(getpid()))) {
    fs::create_directories(dir_);
  }
  ~ProfileScratch() { fs::remove_all(dir_); }
  std::string write(const std::string& stem, const std::string& text) const {
    std::string path = (dir_ / (stem + ".yaml")).string();
    std::ofstream(path) << text;
    return path;
  }

 private:
  fs::path dir_;
};

struct BadCase {
  const char* stem;
  const char* yaml;
  const char* error;  // after "PATH"
};

// One row per validation error; the expected text starts at the ":LINE:COL" after the path.
const BadCase kBadCases[] = {
    {"unknown_top", "name: unknown_top\nnode: {gpus: 0}\nnodes: 1\n",
     ":3:1: unknown key 'nodes' (known here: name, description, extends, detect, scheduler, "
     "node, binding, launch, setup, env, rendezvous, guards)"},
    {"unknown_nested", "name: unknown_nested\nnode:\n  gpus: 0\n  gpu: 1\n",
     ":4:3: unknown key 'node.gpu' (known here: gpus, gpu_vendor, gpu_model, cores, "
     "numa_domains, gpu_numa, gpu_cpus, nics)"},
    {"unknown_in_item",
     "name: unknown_in_item\nnode: {gpus: 0}\nscheduler:\n  partitions:\n    - name: a\n"
     "      max_node: 2\n",
     ":6:7: unknown key 'scheduler.partitions[0].max_node' (known here: name, max_walltime, "
     "max_nodes, gpus_per_node)"},
    {"not_int", "name: not_int\nnode:\n  gpus: four\n",
     ":3:9: node.gpus: expected an integer, got 'four'"},
    {"not_bool", "name: not_bool\nnode: {gpus: 0}\nscheduler: {account_required: maybe}\n",
     ":3:31: scheduler.account_required: expected true or false, got 'maybe'"},
    {"not_list", "name: not_list\nnode: {gpus: 0}\ndetect:\n  cluster_names: abc\n",
     ":4:18: detect.cluster_names: expected a list, got 'abc'"},
    {"not_map", "name: not_map\nnode: 4\n", ":2:7: node: expected a mapping, got '4'"},
    {"no_name", "node: {gpus: 0}\n",
     ":1:1: name: required, and it must be the file name without .yaml ('no_name')"},
    {"wrong_stem", "name: other\nnode: {gpus: 0}\n",
     ":1:7: name: 'other' does not match the file name; it must be 'wrong_stem'"},
    {"no_node", "description: x\nname: no_node\n", ":1:1: node.gpus: required, but not given"},
    {"no_gpus", "name: no_gpus\nnode:\n  cores: 4\n", ":2:1: node.gpus: required, but not given"},
    {"negative_cores", "name: negative_cores\nnode:\n  gpus: 0\n  cores: -1\n",
     ":4:10: node.cores: -1 is below the minimum 0"},
    {"numa_zero", "name: numa_zero\nnode:\n  gpus: 0\n  numa_domains: 0\n",
     ":4:17: node.numa_domains: 0 is below the minimum 1"},
    {"numa_length",
     "name: numa_length\nnode:\n  gpus: 4\n  gpu_vendor: nvidia\n"
     "  gpu_numa: [0, 0, 1]\n",
     ":5:13: node.gpu_numa: has 3 entries but node.gpus is 4; give one per GPU"},
    {"cpus_length",
     "name: cpus_length\nnode:\n  gpus: 2\n  gpu_vendor: amd\n"
     "  gpu_cpus: [\"0-3\"]\n",
     ":5:13: node.gpu_cpus: has 1 entry but node.gpus is 2; give one per GPU"},
    {"order_length",
     "name: order_length\nnode: {gpus: 2, gpu_vendor: nvidia}\n"
     "binding:\n  gpu_order: [0]\n",
     ":4:14: binding.gpu_order: has 1 entry but node.gpus is 2; give one per GPU"},
    {"order_twice",
     "name: order_twice\nnode: {gpus: 2, gpu_vendor: nvidia}\n"
     "binding:\n  gpu_order: [0, 0]\n",
     ":4:18: binding.gpu_order[1]: GPU 0 is listed twice"},
    {"order_range",
     "name: order_range\nnode: {gpus: 2, gpu_vendor: nvidia}\n"
     "binding:\n  gpu_order: [0, 2]\n",
     ":4:18: binding.gpu_order[1]: GPU 2 does not exist; GPUs are 0..1"},
    {"numa_range",
     "name: numa_range\nnode:\n  gpus: 2\n  gpu_vendor: nvidia\n"
     "  numa_domains: 2\n  gpu_numa: [0, 2]\n",
     ":6:17: node.gpu_numa[1]: NUMA domain 2 does not exist; node.numa_domains is 2"},
    {"bad_cpus",
     "name: bad_cpus\nnode:\n  gpus: 1\n  gpu_vendor: nvidia\n"
     "  gpu_cpus: [\"0-x\"]\n",
     ":5:14: node.gpu_cpus[0]: cpu list '0-x': '0-x' is not a CPU number or an ascending range "
     "N-M (0..65535)"},
    {"bad_vendor", "name: bad_vendor\nnode:\n  gpus: 0\n  gpu_vendor: intel\n",
     ":4:15: node.gpu_vendor: 'intel' is not one of: nvidia, amd, none"},
    {"vendor_none", "name: vendor_none\nnode:\n  gpus: 2\n  gpu_vendor: none\n",
     ":4:15: node.gpu_vendor: is none but node.gpus is 2"},
    {"vendor_missing", "name: vendor_missing\nnode:\n  gpus: 2\n",
     ":3:9: node.gpus: is 2 but node.gpu_vendor is not given; say nvidia or amd"},
    {"bad_walltime",
     "name: bad_walltime\nnode: {gpus: 0}\nscheduler:\n"
     "  max_walltime: 2 days\n",
     ":4:17: scheduler.max_walltime: '2 days' is not a Slurm time limit (MINUTES, HH:MM:SS, "
     "DAYS-HH, or DAYS-HH:MM:SS; leave the key out for no limit)"},
    {"bad_part_walltime",
     "name: bad_part_walltime\nnode: {gpus: 0}\nscheduler:\n"
     "  partitions:\n    - {name: a, max_walltime: \"1:00:00\"}\n"
     "    - {name: b, max_walltime: \"01:99:00\"}\n",
     ":6:31: scheduler.partitions[1].max_walltime: '01:99:00' is not a Slurm time limit "
     "(MINUTES, HH:MM:SS, DAYS-HH, or DAYS-HH:MM:SS; leave the key out for no limit)"},
    {"part_no_name",
     "name: part_no_name\nnode: {gpus: 0}\nscheduler:\n"
     "  partitions:\n    - max_nodes: 2\n",
     ":5:7: scheduler.partitions[0].name: required, but not given"},
    {"part_unknown",
     "name: part_unknown\nnode: {gpus: 0}\nscheduler:\n  partition: big\n"
     "  partitions: [{name: small}]\n",
     ":4:14: scheduler.partition: 'big' is not among scheduler.partitions (small)"},
    {"request_no_gpus",
     "name: request_no_gpus\nnode: {gpus: 0}\n"
     "scheduler: {gpu_request: --exclusive}\n",
     ":3:26: scheduler.gpu_request: must contain {gpus}"},
    {"request_unknown",
     "name: request_unknown\nnode: {gpus: 0}\n"
     "scheduler: {gpu_request: \"--gres=gpu:{gpus}{x}\"}\n",
     ":3:26: scheduler.gpu_request: unknown placeholder {x}; use {gpus} and {gpu_type}"},
    {"request_type",
     "name: request_type\nnode: {gpus: 0}\n"
     "scheduler: {gpu_request: \"--gpus-per-node={gpu_type}:{gpus}\"}\n",
     ":3:26: scheduler.gpu_request: uses {gpu_type} but scheduler.gpu_type is not set"},
    {"directive_no_reason",
     "name: directive_no_reason\nnode: {gpus: 0}\nscheduler:\n"
     "  directives:\n    - flag: --comment=x\n",
     ":5:7: scheduler.directives[0].reason: required, but not given"},
    {"env_no_reason",
     "name: env_no_reason\nnode: {gpus: 0}\nenv:\n  - name: X\n"
     "    value: \"1\"\n",
     ":4:5: env[0].reason: required, but not given"},
    {"env_empty_reason",
     "name: env_empty_reason\nnode: {gpus: 0}\nenv:\n"
     "  - {name: X, value: \"1\", reason: \"\"}\n",
     ":4:35: env[0].reason: must not be empty"},
    {"env_no_value", "name: env_no_value\nnode: {gpus: 0}\nenv:\n  - {name: X, reason: y}\n",
     ":4:5: env[0].value: required, but not given"},
    {"env_bad_name",
     "name: env_bad_name\nnode: {gpus: 0}\nenv:\n"
     "  - {name: 1X, value: \"1\", reason: y}\n",
     ":4:12: env[0].name: '1X' is not a variable name"},
    {"env_twice",
     "name: env_twice\nnode: {gpus: 0}\nenv:\n  - {name: X, value: a, reason: y}\n"
     "  - {name: X, value: b, reason: y}\n",
     ":5:12: env[1].name: X is already set by env[0]"},
    {"env_not_bool",
     "name: env_not_bool\nnode: {gpus: 0}\nenv:\n"
     "  - {name: X, value: a, reason: y, confirmed: perhaps}\n",
     ":4:47: env[0].confirmed: expected true or false, got 'perhaps'"},
    {"unknown_guard", "name: unknown_guard\nnode: {gpus: 0}\nguards: [no_such]\n",
     ":3:10: guards[0]: 'no_such' is not one of: no_gpus_per_task, nccl_net_needs_plugin, "
     "no_mem_flag"},
    {"port_low", "name: port_low\nnode: {gpus: 0}\nrendezvous: {master_port_base: 80}\n",
     ":3:32: rendezvous.master_port_base: 80 is a privileged port; use 1024..55535, or 0 for "
     "hvdrun's default"},
    {"port_high", "name: port_high\nnode: {gpus: 0}\nrendezvous: {master_port_base: 60000}\n",
     ":3:32: rendezvous.master_port_base: 60000 is outside 0..55535"},
    {"empty_list_item", "name: empty_list_item\nnode: {gpus: 0}\nsetup:\n  modules: [a, \"\"]\n",
     ":4:16: setup.modules[1]: must not be empty"},
    {"key_twice", "name: key_twice\nnode:\n  gpus: 0\n  gpus: 2\n",
     ":4:3: node.gpus: given twice in the same mapping"},
    {"complex_key", "name: complex_key\nnode:\n  gpus: 0\n  ? [a, b]\n  : 1\n",
     ":4:5: node: a key must be a plain name, not a list"},
    // Issue 10: values that reach batch scripts. A newline in a reason escaped its comment; a
    // module name was put after `module load` as it was; container was split on spaces.
    {"reason_newline",
     "name: reason_newline\nnode: {gpus: 0}\nenv:\n"
     "  - {name: X, value: a, reason: \"ok\\necho pwned\"}\n",
     ":4:33: env[0].reason: holds a newline at offset 2; give one line"},
    {"flag_newline",
     "name: flag_newline\nnode: {gpus: 0}\nscheduler:\n"
     "  directives: [{flag: \"--comment=x\\n#SBATCH --x\", reason: r}]\n",
     ":4:23: scheduler.directives[0].flag: holds a newline at offset 11; give one line"},
    {"qos_tab", "name: qos_tab\nnode: {gpus: 0}\nscheduler: {qos: \"a\\tb\"}\n",
     ":3:18: scheduler.qos: holds a tab at offset 1; give one line"},
    {"module_shell",
     "name: module_shell\nnode: {gpus: 0}\nsetup:\n  modules: [gcc, \"gcc; echo pwned\"]\n",
     ":4:18: setup.modules[1]: 'gcc; echo pwned' is not a module name (a letter or digit, then "
     "letters, digits and _.+-/@:=); each becomes `module load NAME` in batch scripts"},
    {"container_spaces",
     "name: container_spaces\nnode: {gpus: 0}\nsetup:\n  container: \"apptainer exec x.sif\"\n",
     ":4:14: setup.container: write it as a list of words, e.g. [apptainer, exec, --nv, X.sif]"},
    {"not_a_map", "- name\n- node\n",
     ":1:1: a site profile must be a mapping of keys to values (see site-profiles/README.md)"},
};

}  // namespace

TEST_CASE("profile loader: every validation error names file, line, column and key path") {
  const ProfileScratch dir;
  for (const BadCase& c : kBadCases) {
    CAPTURE(c.stem);
    const std::string path = dir.write(c.stem, c.yaml);
    CHECK(load_error(path) == path + c.error);
  }
}

TEST_CASE("profile loader: a bad regex and malformed YAML are located too") {
  const ProfileScratch dir;
  const std::string regex =
      dir.write("bad_regex",
                "name: bad_regex\nnode: {gpus: 0}\ndetect:\n  hostname_patterns: [\"nid[0-9\"]\n");
  const std::string prefix =
      regex + ":4:23: detect.hostname_patterns[0]: 'nid[0-9' is not a valid regular expression: ";
  CHECK(load_error(regex).rfind(prefix, 0) == 0);
  const std::string broken = dir.write("broken", "name: broken\nnode: [1, 2\n");
  CHECK(load_error(broken).rfind(broken + ":3:1: malformed YAML: ", 0) == 0);
  const std::string empty = dir.write("empty", "");
  CHECK(load_error(empty) ==
        empty +
            ": a site profile must be a mapping of keys to values (see site-profiles/README.md)");
  CHECK(load_error(dir.write("null_value", "name: null_value\nnode:\n  gpus:\n"))
            .find(": node.gpus: expected an integer, got nothing") != std::string::npos);
}

// Issue 10: nine levels of nine aliases (407 bytes) took 32.8 s and 2.9 GB in record_all.
TEST_CASE("profile loader: YAML anchors and aliases are refused where they are written") {
  const ProfileScratch dir;
  std::string bomb =
      "name: bomb\nnode: {gpus: 0}\ndescription: x\nl0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "l" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j) bomb += (j ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  const std::string path = dir.write("bomb", bomb);
  CHECK(load_error(path) == path +
                                ":4:5: an anchor (&name): YAML anchors and aliases are not "
                                "allowed in hvdrun's files; write the value out where it is used");
  const std::string alias =
      dir.write("alias", "name: alias\nnode: {gpus: 0}\nscheduler:\n  qos: *q\n");
  CHECK(load_error(alias).rfind(alias + ":4:8: malformed YAML", 0) == 0);  // *q names no anchor
  CHECK(
      load_error(dir.write("merge_key", "name: merge_key\nnode: &n {gpus: 0}\nbinding: {<<: *n}\n"))
          .find(":2:7: an anchor (&name)") != std::string::npos);
}

TEST_CASE("profile loader: a single-word container string is one word") {
  const ProfileScratch dir;
  const std::string path =
      dir.write("one_word", "name: one_word\nnode: {gpus: 0}\nsetup: {container: wrapper.sh}\n");
  const profile::SiteProfile p = profile::load_profile_file(path, sibling_resolver(kChain));
  CHECK(p.container == std::vector<std::string>{"wrapper.sh"});
}

TEST_CASE("profile loader: a valid file gives every field") {
  const ProfileScratch dir;
  const std::string path = dir.write("full", R"(name: full
description: "all keys"
detect: {cluster_names: [c1], hostname_patterns: ["h[0-9]+"]}
scheduler:
  account_required: true
  partition: p1
  qos: q
  constraint: gpu
  gpu_request: "--gpus-per-node={gpu_type}:{gpus}"
  gpu_type: A100
  directives: [{flag: --comment=x, reason: needed}]
  max_walltime: "2-00:00:00"
  partitions: [{name: p1, max_walltime: "30", max_nodes: 4, gpus_per_node: 2},
               {name: p2, max_walltime: "1-12"}]
node: {gpus: 2, gpu_vendor: amd, gpu_model: M, cores: 16, numa_domains: 2, gpu_numa: [1, 0],
       gpu_cpus: ["8-15", "0-7"], nics: [hsn0]}
binding: {gpu_order: [1, 0], ranks_per_node: 2, cpus_per_task: 8, cpu_bind: cores, gpu_bind: none}
launch: {mpi: pmix, srun_args: [--network=x], net_plugin: here}
setup: {modules: [m1, m2], container: [apptainer, exec, "my image.sif"], commands: ["echo hi"]}
env: [{name: A, value: 1, reason: r, confirmed: false}]
rendezvous: {master_port_base: 20000}
guards: [no_gpus_per_task]
)");
  const profile::SiteProfile p = profile::load_profile_file(path, sibling_resolver(kChain));
  CHECK(p.name == "full");
  CHECK(p.source == path);
  CHECK(p.sources == std::vector<std::string>{path});
  CHECK(p.hostname_patterns == std::vector<std::string>{"h[0-9]+"});
  CHECK(p.account_required);
  CHECK(p.directives.at(0).flag == "--comment=x");
  REQUIRE(p.partitions.size() == 2);
  CHECK(p.partitions[0].max_walltime == "30");
  CHECK(p.partitions[0].gpus_per_node == 2);
  CHECK(p.partitions[1].max_nodes == 0);
  CHECK(p.partitions[1].gpus_per_node == -1);
  CHECK(p.gpu_vendor == "amd");
  CHECK(p.gpu_env == "ROCR_VISIBLE_DEVICES");  // the AMD default
  CHECK(p.gpu_cpus == std::vector<std::string>{"8-15", "0-7"});
  CHECK(p.gpu_order == std::vector<int>{1, 0});
  CHECK(p.net_plugin == "here");
  CHECK(p.setup_commands == std::vector<std::string>{"echo hi"});
  CHECK(p.container == std::vector<std::string>{"apptainer", "exec", "my image.sif"});
  REQUIRE(p.env.size() == 1);
  CHECK(p.env[0].value == "1");
  CHECK_FALSE(p.env[0].confirmed);
  CHECK(p.master_port_base == 20000);
  CHECK(p.default_ranks_per_node() == 2);
}

TEST_CASE("profile loader: extends merges maps and replaces lists and scalars") {
  const profile::SiteProfile p =
      profile::load_profile_file(kChain + "/child.yaml", sibling_resolver(kChain));
  CHECK(p.name == "child");
  CHECK(p.description == "child profile");
  CHECK_FALSE(p.account_required);  // child scalar wins
  CHECK(p.partition == "gpu");      // parent value kept
  CHECK(p.cores_per_node == 64);    // merged node: child's cores ...
  CHECK(p.gpus_per_node == 4);      // ... and the parent's gpus
  CHECK(p.gpu_numa == std::vector<int>{0, 0, 1, 1});
  REQUIRE(p.env.size() == 1);  // lists replace
  CHECK(p.env[0].name == "CHILD_ONLY");
  CHECK(p.guards == std::vector<std::string>{"no_gpus_per_task"});
  CHECK(p.sources == std::vector<std::string>{kChain + "/base.yaml", kChain + "/child.yaml"});

  const profile::SiteProfile g =
      profile::load_profile_file(kChain + "/grandchild.yaml", sibling_resolver(kChain));
  CHECK(g.name == "grandchild");
  CHECK(g.description == "child profile");
  CHECK(g.gpu_order == std::vector<int>{1, 0, 3, 2});
  CHECK(g.sources.size() == 3);

  const profile::MergedProfile m =
      profile::merge_profile_file(kChain + "/child.yaml", sibling_resolver(kChain));
  CHECK_FALSE(m.root["extends"]);
  YAML::Emitter out;
  out << m.root;
  const std::string text = out.c_str();
  CHECK(text.find("name: child") != std::string::npos);
  CHECK(text.find("cores: 64") != std::string::npos);
  CHECK(text.find("BASE_ONLY") == std::string::npos);
}

TEST_CASE("profile loader: errors through extends point at the file that wrote the value") {
  const std::string base = kChain + "/base.yaml";
  CHECK(load_error(kChain + "/narrow_numa.yaml") ==
        base + ":16:20: node.gpu_numa[2]: NUMA domain 1 does not exist; node.numa_domains is 1");
  CHECK(load_error(kChain + "/fewer_gpus.yaml") ==
        base + ":16:13: node.gpu_numa: has 4 entries but node.gpus is 2; give one per GPU");
  CHECK(load_error(kChain + "/child_unknown_key.yaml") ==
        kChain +
            "/child_unknown_key.yaml:5:3: unknown key 'node.gpu_typo' (known here: gpus, "
            "gpu_vendor, gpu_model, cores, numa_domains, gpu_numa, gpu_cpus, nics)");
  CHECK(load_error(kChain + "/replaced_env.yaml") ==
        kChain + "/replaced_env.yaml:4:5: env[0].reason: required, but not given");
}

TEST_CASE("profile loader: extends cycles and unknown parents") {
  const std::string a = kChain + "/cycle_a.yaml";
  const std::string b = kChain + "/cycle_b.yaml";
  CHECK(load_error(a) ==
        b + ":2:10: extends: 'cycle_a' makes a cycle: " + a + " -> " + b + " -> " + a);
  const std::string self = kChain + "/self_loop.yaml";
  CHECK(load_error(self) ==
        self + ":2:10: extends: 'self_loop' makes a cycle: " + self + " -> " + self);
  CHECK(load_error(kChain + "/orphan.yaml") ==
        kChain + "/orphan.yaml:2:10: extends: no site profile named 'no_such_parent'");
  CHECK(load_error(kChain + "/missing.yaml").rfind(kChain + "/missing.yaml: cannot read: ", 0) ==
        0);
}

TEST_CASE("profile loader: the embedded local profile equals site-profiles/local.yaml") {
  CHECK(read_text(kShipped + "/local.yaml") == profile::kEmbeddedLocalYaml);
  const profile::SiteProfile p = profile::embedded_local_profile();
  CHECK(p.name == "local");
  CHECK(p.gpus_per_node == 0);
  CHECK(p.source.empty());
  CHECK(p.sources.empty());
  CHECK(profile::embedded_local_merged().sources ==
        std::vector<std::string>{profile::kEmbeddedLocalName});
}

TEST_CASE("profile loader: every shipped profile loads and validates") {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kShipped)) {
    if (entry.path().extension() != ".yaml") continue;
    CAPTURE(entry.path().string());
    const profile::SiteProfile p =
        profile::load_profile_file(entry.path().string(), sibling_resolver(kShipped));
    CHECK(p.name == entry.path().stem().string());
    CHECK_FALSE(p.description.empty());
    for (const profile::EnvVar& v : p.env) CHECK_FALSE(v.reason.empty());
    ++count;
  }
  CHECK(count >= 7);
}

TEST_CASE("profile loader: shipped profiles hold the facts the product relies on") {
  const auto load = [](const std::string& name) {
    return profile::load_profile_file(kShipped + "/" + name + ".yaml", sibling_resolver(kShipped));
  };
  const profile::SiteProfile alvis = load("alvis");
  CHECK(alvis.gpu_request == "--gpus-per-node={gpu_type}:{gpus}");
  CHECK(alvis.gpu_type == "A100");
  const profile::SiteProfile neuron = load("neuron");
  CHECK(neuron.gpu_request == "--gres=gpu:{gpus}");
  CHECK_FALSE(neuron.account_required);
  REQUIRE(neuron.directives.size() == 1);
  CHECK(neuron.directives[0].flag == "--comment=pytorch");
  const profile::SiteProfile pm = load("perlmutter");
  CHECK(pm.account_required);
  CHECK(pm.constraint == "gpu");
  CHECK(pm.gpu_order == std::vector<int>{3, 2, 1, 0});
  CHECK(pm.gpu_bind == "none");
  CHECK(pm.guards == std::vector<std::string>{"no_gpus_per_task"});
  const profile::SiteProfile lumi = load("lumi");
  CHECK(lumi.gpu_vendor == "amd");
  CHECK(lumi.gpu_env == "ROCR_VISIBLE_DEVICES");
  CHECK(lumi.gpus_per_node == 8);
  CHECK(lumi.gpu_numa == std::vector<int>{3, 3, 1, 1, 0, 0, 2, 2});
  REQUIRE(lumi.partitions.size() == 3);
  CHECK(lumi.partitions[0].max_walltime == "2-00:00:00");
  CHECK(lumi.partitions[1].max_walltime == "3-00:00:00");
  CHECK(lumi.partitions[2].max_walltime == "03:00:00");
  for (const char* name : {"alps", "olivia"}) {
    const profile::SiteProfile gh = load(name);
    CHECK(gh.gpus_per_node == 4);
    CHECK(gh.cores_per_node == 288);
    CHECK(gh.gpu_numa == std::vector<int>{0, 1, 2, 3});
    CHECK(gh.srun_args == std::vector<std::string>{"--network=disable_rdzv_get"});
    CHECK(gh.guards == std::vector<std::string>{"nccl_net_needs_plugin"});
  }
  // The test cluster's profile lives with the tests (it is not installed).
  const std::string test_dir = HVD_TEST_DATA_DIR "/site-profiles";
  const profile::SiteProfile test =
      profile::load_profile_file(test_dir + "/hvdtest.yaml", sibling_resolver(test_dir));
  CHECK(test.cluster_names == std::vector<std::string>{"hvdtest"});
  CHECK(test.partition == "debug");
  CHECK(test.max_walltime == "01:00:00");
  CHECK(test.gpu_numa == std::vector<int>{0, 0, 1, 1});
  CHECK(test.mpi == "pmix");
  CHECK(test.cpu_bind.empty());  // the cluster has no CPU binding plugin; srun would warn
}
