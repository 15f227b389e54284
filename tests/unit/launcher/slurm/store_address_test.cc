// SPDX-License-Identifier: Apache-2.0
#include "slurm/store_address.h"

#include <doctest/doctest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hvd/error.h"

namespace slurm = hvd::launcher::slurm;

namespace {

// A pretend network: what names resolve to, which addresses are this host's, and the source
// address this host would use towards each peer.
struct FakeNet {
  std::map<std::string, std::vector<std::string>> names;
  std::set<std::string> local;
  std::map<std::string, std::string> routes;

  slurm::AddressProbes probes() const {
    return {[this](const std::string& n) {
              const auto it = names.find(n);
              return it == names.end() ? std::vector<std::string>{} : it->second;
            },
            [this](const std::string& a) { return local.count(a) > 0; },
            [this](const std::string& h) -> std::optional<std::string> {
              const auto it = routes.find(h);
              if (it == routes.end()) return std::nullopt;
              return it->second;
            }};
  }
};

}  // namespace

TEST_CASE("store address: this node's own address when it is one of this host's") {
  FakeNet net;
  net.names["node1"] = {"10.0.0.1"};
  net.local = {"127.0.0.1", "10.0.0.1", "192.168.9.1"};
  net.routes["node2"] = "192.168.9.1";  // would also work, but node1 is what peers resolve
  CHECK(slurm::store_bind_address("node1", {"node2"}, net.probes()) == "10.0.0.1");
}

TEST_CASE("store address: a name that resolves to loopback gives the route towards a peer") {
  FakeNet net;
  net.names["node1"] = {"127.0.1.1"};  // Debian's /etc/hosts entry for the host name
  net.local = {"127.0.0.1", "127.0.1.1", "10.0.0.1"};
  net.routes["node2"] = "10.0.0.1";
  CHECK(slurm::store_bind_address("node1", {"unroutable", "node2"}, net.probes()) == "10.0.0.1");
}

TEST_CASE("store address: one-node steps listen on loopback, never on every interface") {
  FakeNet net;  // the name does not even resolve
  CHECK(slurm::store_bind_address("node1", {}, net.probes()) == "127.0.0.1");
  net.names["node1"] = {"10.0.0.1"};  // resolves, but to an address this host does not have
  CHECK(slurm::store_bind_address("node1", {}, net.probes()) == "127.0.0.1");
}

TEST_CASE("store address: peers reached over loopback run on this host: loopback it is") {
  FakeNet net;
  net.names["node1"] = {"127.0.1.1"};
  net.routes["127.0.0.1"] = "127.0.0.1";  // NodeAddr=127.0.0.1, as on the test cluster
  CHECK(slurm::store_bind_address("node1", {"127.0.0.1"}, net.probes()) == "127.0.0.1");
}

TEST_CASE("store address: no route to the other nodes is a launch error naming them") {
  FakeNet net;
  net.names["node1"] = {"127.0.1.1"};
  CHECK_THROWS_WITH_AS(slurm::store_bind_address("node1", {"node2"}, net.probes()),
                       doctest::Contains("node2"), hvd::LaunchError);
}
