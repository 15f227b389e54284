// SPDX-License-Identifier: Apache-2.0
// Local and cross ranks from host names; the consistency check; string packing.
#include "bootstrap/topology.h"

#include <doctest/doctest.h>

#include "bootstrap/string_pack.h"
#include "hvd/error.h"

namespace boot = hvd::bootstrap;

namespace {
std::vector<int> field(const std::vector<std::string>& hosts, int boot::HostLayout::*member) {
  std::vector<int> out;
  for (size_t r = 0; r < hosts.size(); ++r) {
    out.push_back(boot::layout_from_hostnames(hosts, static_cast<int>(r)).*member);
  }
  return out;
}
}  // namespace

TEST_CASE("topology: block placement over two hosts") {
  const std::vector<std::string> hosts = {"a", "a", "b", "b"};
  CHECK(field(hosts, &boot::HostLayout::local_rank) == std::vector<int>{0, 1, 0, 1});
  CHECK(field(hosts, &boot::HostLayout::local_size) == std::vector<int>{2, 2, 2, 2});
  CHECK(field(hosts, &boot::HostLayout::cross_rank) == std::vector<int>{0, 0, 1, 1});
  CHECK(field(hosts, &boot::HostLayout::cross_size) == std::vector<int>{2, 2, 2, 2});
}

TEST_CASE("topology: cyclic and uneven placement, hosts numbered by lowest rank") {
  const std::vector<std::string> hosts = {"z", "a", "z", "a", "m"};
  CHECK(field(hosts, &boot::HostLayout::local_rank) == std::vector<int>{0, 0, 1, 1, 0});
  CHECK(field(hosts, &boot::HostLayout::local_size) == std::vector<int>{2, 2, 2, 2, 1});
  CHECK(field(hosts, &boot::HostLayout::cross_rank) == std::vector<int>{0, 1, 0, 1, 2});
  CHECK(field(hosts, &boot::HostLayout::cross_size) == std::vector<int>{3, 3, 3, 3, 3});
  CHECK(field({"only"}, &boot::HostLayout::local_size) == std::vector<int>{1});
}

TEST_CASE("topology: check_world names the method and what is wrong") {
  boot::WorldInfo w;
  w.method = "fake";
  w.rank = 1;
  w.size = 4;
  w.local_size = 2;
  w.local_rank = 1;
  CHECK_NOTHROW(boot::check_world(w));
  w.local_rank = 2;
  CHECK_THROWS_WITH_AS(boot::check_world(w),
                       doctest::Contains("method 'fake' gave an inconsistent world "
                                         "(local_rank outside [0, local_size))"),
                       hvd::BootstrapError);
  w.local_rank = 0;
  w.rank = 4;
  CHECK_THROWS_WITH_AS(boot::check_world(w), doctest::Contains("rank outside [0, size)"),
                       hvd::BootstrapError);
  w.rank = 0;
  w.cross_size = 5;
  CHECK_THROWS_AS(boot::check_world(w), hvd::BootstrapError);
}

TEST_CASE("string pack: round trip, any bytes, and corrupt input") {
  const std::vector<std::string> parts = {"", "a", std::string("x\0y", 3), std::string(1000, 'z')};
  CHECK(boot::unpack_strings(boot::pack_strings(parts), "t") == parts);
  CHECK(boot::unpack_strings(boot::pack_strings({}), "t").empty());
  const std::string packed = boot::pack_strings(parts);
  CHECK_THROWS_WITH_AS(boot::unpack_strings(packed.substr(0, packed.size() - 1), "blob"),
                       doctest::Contains("blob: truncated"), hvd::BootstrapError);
  CHECK_THROWS_WITH_AS(boot::unpack_strings(packed + "!", "blob"), "blob: 1 trailing bytes",
                       hvd::BootstrapError);
  CHECK_THROWS_AS(boot::unpack_strings("\xff\xff\xff\xff", "blob"), hvd::BootstrapError);
  CHECK_THROWS_AS(boot::unpack_strings("", "blob"), hvd::BootstrapError);
}
