// SPDX-License-Identifier: Apache-2.0
#include "preflight/node_layout.h"

#include <doctest/doctest.h>

using namespace hvd::preflight;

TEST_CASE("group_by_host: nodes in the order of their first rank") {
  const auto nodes = group_by_host({"b", "a", "b", "a", "c"});
  REQUIRE(nodes.size() == 3);
  CHECK(nodes[0].host == "b");
  CHECK(nodes[0].ranks == std::vector<int>{0, 2});
  CHECK(nodes[1].ranks == std::vector<int>{1, 3});
  CHECK(nodes[2].ranks == std::vector<int>{4});
}

TEST_CASE("link_sets: none for one node, one for two, a ring of leaders for more") {
  CHECK(link_sets(group_by_host({"a", "a"})).empty());
  const auto two = link_sets(group_by_host({"a", "a", "b", "b"}));
  REQUIRE(two.size() == 1);
  CHECK(two[0].ranks == std::vector<int>{0, 2});
  const auto three = link_sets(group_by_host({"a", "b", "c", "a", "b", "c"}));
  REQUIRE(three.size() == 3);
  CHECK(three[2].a == 2);
  CHECK(three[2].b == 0);
  CHECK(three[2].ranks == std::vector<int>{0, 2});  // sorted, as add_process_set stores them
}

TEST_CASE("node_sets: only nodes with two or more ranks") {
  const auto sets = node_sets(group_by_host({"a", "b", "b"}));
  REQUIRE(sets.size() == 1);
  CHECK(sets[0].a == 1);
  CHECK(sets[0].b == -1);
  CHECK(sets[0].ranks == std::vector<int>{1, 2});
}
