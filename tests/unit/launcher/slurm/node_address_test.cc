// SPDX-License-Identifier: Apache-2.0
// node_address(): a node name that does not resolve is looked up with `scontrol show node NAME`,
// run without a shell, so that a name holding shell metacharacters is one argument and runs
// nothing. The scontrol here is a fake on PATH that records its argv.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "slurm/node_address.h"

namespace slurm = hvd::launcher::slurm;
namespace fs = std::filesystem;

TEST_CASE("node address: a node name with shell metacharacters reaches scontrol as one argument") {
  std::string pattern = (fs::temp_directory_path() / "hvd-scontrol-XXXXXX").string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  const std::string dir = pattern;
  const std::string marker = dir + "/ran";
  // Records one argument per NUL-terminated field, then answers as scontrol does, but only in
  // the environment node_address() was given (hvdrun's EnvMap, not this test's own).
  std::ofstream(dir + "/scontrol") << "#!/bin/sh\nprintf '%s\\0' \"$@\" > '" << dir
                                   << "/argv'\n[ \"$HVD_FAKE_MARK\" = given ] || exit 1\n"
                                   << "echo 'NodeName=x Arch=x86_64'\n"
                                   << "echo '   NodeAddr=10.9.8.7 NodeHostName=x Version=22.05'\n";
  chmod((dir + "/scontrol").c_str(), 0700);
  const std::string node =
      "gpu1;touch " + marker + " $(touch " + marker + ")`touch " + marker + "`'\"|&";
  const std::string addr = slurm::node_address(node, {{"PATH", dir}, {"HVD_FAKE_MARK", "given"}});
  std::ifstream in(dir + "/argv");
  std::vector<std::string> args;
  for (std::string arg; std::getline(in, arg, '\0');) args.push_back(arg);
  CHECK(addr == "10.9.8.7");
  CHECK(args == std::vector<std::string>{"show", "node", node});
  CHECK_FALSE(fs::exists(marker));
  fs::remove_all(dir);
}

// One planning run asks about the same nodes several times (MASTER_ADDR, the store's peers):
// one scontrol run answers for the job's nodes, and a node asked about again costs nothing.
TEST_CASE("node address: one scontrol run for the job's nodes, none for a node seen before") {
  std::string pattern = (fs::temp_directory_path() / "hvd-scontrol-XXXXXX").string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  const std::string dir = pattern;
  // Appends its node argument to `calls`, then answers for n1..n3 (as the real one does, in its
  // own order, not the argument's).
  std::ofstream(dir + "/scontrol") << "#!/bin/sh\necho \"$3\" >> '" << dir << "/calls'\n"
                                   << "for n in 3 1 2; do\n"
                                   << "  echo \"NodeName=hvdtest-n$n Arch=x86_64\"\n"
                                   << "  echo \"   NodeAddr=10.9.8.$n NodeHostName=x\"\n"
                                   << "done\n";
  chmod((dir + "/scontrol").c_str(), 0700);
  const hvd::launcher::EnvMap env = {
      {"PATH", dir}, {"SLURM_JOB_NODELIST", "hvdtest-n[1-3]"}, {"SLURM_CONF", dir + "/slurm.conf"}};
  CHECK(slurm::node_address("hvdtest-n1", env) == "10.9.8.1");
  CHECK(slurm::node_address("hvdtest-n1", env) == "10.9.8.1");
  CHECK(slurm::node_address("hvdtest-n3", env) == "10.9.8.3");
  CHECK(slurm::node_address("hvdtest-n2", env) == "10.9.8.2");
  std::ifstream in(dir + "/calls");
  std::vector<std::string> calls;
  for (std::string line; std::getline(in, line);) calls.push_back(line);
  CHECK(calls == std::vector<std::string>{"hvdtest-n1,hvdtest-n2,hvdtest-n3"});
  SUBCASE("another cluster's answers are not reused") {
    hvd::launcher::EnvMap other = env;
    other["SLURM_CONF"] = dir + "/other.conf";
    CHECK(slurm::node_address("hvdtest-n2", other) == "10.9.8.2");
    std::ifstream again(dir + "/calls");
    int runs = 0;
    for (std::string line; std::getline(again, line);) ++runs;
    CHECK(runs == 2);
  }
  fs::remove_all(dir);
}
