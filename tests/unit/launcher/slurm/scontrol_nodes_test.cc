// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "slurm/scontrol_nodes.h"

namespace slurm = hvd::launcher::slurm;
using Addrs = std::map<std::string, std::string>;
using Nodes = std::vector<std::string>;

TEST_CASE("scontrol nodes: NodeAddr of every record, by NodeName") {
  // As scontrol 22.05 prints `show node node1,node2` (shortened).
  const std::string two =
      "NodeName=node1 Arch=x86_64 CoresPerSocket=4 \n"
      "   CPUAlloc=0 CPUEfctv=8 CPUTot=8 CPULoad=7.08\n"
      "   NodeAddr=127.0.0.1 NodeHostName=localhost Port=26990 Version=22.05.8\n"
      "\n"
      "NodeName=node2 Arch=x86_64 CoresPerSocket=4 \n"
      "   NodeAddr=10.0.0.2 NodeHostName=n2 Port=24887 Version=22.05.8\n";
  CHECK(slurm::parse_node_addrs(two) == Addrs{{"node1", "127.0.0.1"}, {"node2", "10.0.0.2"}});
  SUBCASE("one line per node (-o)") {
    CHECK(slurm::parse_node_addrs("NodeName=a NodeAddr=1.2.3.4 NodeHostName=a\n"
                                  "NodeName=b NodeAddr=1.2.3.5 NodeHostName=b") ==
          Addrs{{"a", "1.2.3.4"}, {"b", "1.2.3.5"}});
  }
  SUBCASE("a key inside another word is not the key") {
    CHECK(slurm::parse_node_addrs("NodeName=a OldNodeAddr=9.9.9.9 NodeAddr=1.2.3.4\n") ==
          Addrs{{"a", "1.2.3.4"}});
  }
  SUBCASE("errors and records without an address give nothing") {
    CHECK(slurm::parse_node_addrs("Node nodeX not found\n").empty());
    CHECK(slurm::parse_node_addrs("NodeName=a Arch=x86_64\n").empty());
    CHECK(slurm::parse_node_addrs("").empty());
  }
}

TEST_CASE("scontrol nodes: one query covers the job's next unknown nodes") {
  const Nodes job = {"n1", "n2", "n3", "n4"};
  CHECK(slurm::nodes_to_query("n1", job, {}, 64) == Nodes{"n1", "n2", "n3", "n4"});
  CHECK(slurm::nodes_to_query("n3", job, {}, 2) == Nodes{"n3", "n1"});
  CHECK(slurm::nodes_to_query("n3", job, Addrs{{"n1", "x"}, {"n2", ""}}, 64) == Nodes{"n3", "n4"});
  SUBCASE("a node outside the job is asked about alone, whatever it holds") {
    CHECK(slurm::nodes_to_query("a,b;c", job, {}, 64) == Nodes{"a,b;c"});
    CHECK(slurm::nodes_to_query("n1", {}, {}, 64) == Nodes{"n1"});
  }
  SUBCASE("duplicates in the job's list are asked about once") {
    CHECK(slurm::nodes_to_query("n1", {"n1", "n2", "n1", "n2"}, {}, 64) == Nodes{"n1", "n2"});
  }
}
