// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "hvd/error.h"
#include "slurm/hostlist.h"

namespace slurm = hvd::launcher::slurm;
using Hosts = std::vector<std::string>;

namespace {
// The message expand_hostlist() throws for `text`, or "" if it accepts it.
std::string expand_error(const std::string& text) {
  try {
    slurm::expand_hostlist(text);
  } catch (const hvd::SchedulerError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}
}  // namespace

TEST_CASE("hostlist: plain names and separators") {
  CHECK(slurm::expand_hostlist("").empty());
  CHECK(slurm::expand_hostlist(" \n").empty());
  CHECK(slurm::expand_hostlist("login1") == Hosts{"login1"});
  CHECK(slurm::expand_hostlist("a,b c\td\ne") == Hosts{"a", "b", "c", "d", "e"});
  CHECK(slurm::expand_hostlist("a, b") == Hosts{"a", "b"});
  CHECK(slurm::expand_hostlist("a  b\n") == Hosts{"a", "b"});
  CHECK(slurm::expand_hostlist(" a ") == Hosts{"a"});
  CHECK(slurm::expand_hostlist("gpu-a.x_1") == Hosts{"gpu-a.x_1"});
}

TEST_CASE("hostlist: ranges, singletons and comma lists in brackets") {
  CHECK(slurm::expand_hostlist("a[1-3]") == Hosts{"a1", "a2", "a3"});
  CHECK(slurm::expand_hostlist("a[5]") == Hosts{"a5"});
  CHECK(slurm::expand_hostlist("a[7-7]") == Hosts{"a7"});
  CHECK(slurm::expand_hostlist("a[1,3-4]") == Hosts{"a1", "a3", "a4"});
  CHECK(slurm::expand_hostlist("a[1-2],b") == Hosts{"a1", "a2", "b"});
  CHECK(slurm::expand_hostlist("a[1-2] b[3,5]\tc") == Hosts{"a1", "a2", "b3", "b5", "c"});
  CHECK(slurm::expand_hostlist("a1[2-3]") == Hosts{"a12", "a13"});
  CHECK(slurm::expand_hostlist("[1-2]") == Hosts{"1", "2"});
  CHECK(slurm::expand_hostlist("x[9-10]") == Hosts{"x9", "x10"});
}

TEST_CASE("hostlist: padding width comes from the lower bound's text") {
  CHECK(slurm::expand_hostlist("tux[08-11]") == Hosts{"tux08", "tux09", "tux10", "tux11"});
  CHECK(slurm::expand_hostlist("tux[8-011]") == Hosts{"tux8", "tux9", "tux10", "tux11"});
  CHECK(slurm::expand_hostlist("nid[1-3,007]") == Hosts{"nid1", "nid2", "nid3", "nid007"});
  CHECK(slurm::expand_hostlist("x[00-1]") == Hosts{"x00", "x01"});
  CHECK(slurm::expand_hostlist("x[0010-12]") == Hosts{"x0010", "x0011", "x0012"});
  CHECK(slurm::expand_hostlist("x[098-100]") == Hosts{"x098", "x099", "x100"});
  CHECK(slurm::expand_hostlist("x[99999999999-100000000000]") ==
        Hosts{"x99999999999", "x100000000000"});
  CHECK(slurm::expand_hostlist("x[18446744073709551615]") == Hosts{"x18446744073709551615"});
}

TEST_CASE("hostlist: order and duplicates are kept") {
  CHECK(slurm::expand_hostlist("node[1-3,2]") == Hosts{"node1", "node2", "node3", "node2"});
  CHECK(slurm::expand_hostlist("b,a,b") == Hosts{"b", "a", "b"});
  CHECK(slurm::expand_hostlist("x[3,1-2]") == Hosts{"x3", "x1", "x2"});
  CHECK(slurm::expand_hostlist("a[1-2],a[1-2]") == Hosts{"a1", "a2", "a1", "a2"});
}

TEST_CASE("hostlist: text after the brackets is a suffix") {
  CHECK(slurm::expand_hostlist("n[1-2]-ib") == Hosts{"n1-ib", "n2-ib"});
  CHECK(slurm::expand_hostlist("n[1-2]-ib,m[3]x") == Hosts{"n1-ib", "n2-ib", "m3x"});
  CHECK(slurm::expand_hostlist("a[1-2]b[3-4]-ib") ==
        Hosts{"a1b3-ib", "a1b4-ib", "a2b3-ib", "a2b4-ib"});
}

TEST_CASE("hostlist: several groups expand in Slurm's product order") {
  CHECK(slurm::expand_hostlist("a[1-2]b[3-4]") == Hosts{"a1b3", "a1b4", "a2b3", "a2b4"});
  CHECK(slurm::expand_hostlist("a[1-2][3-4]") == Hosts{"a13", "a14", "a23", "a24"});
  // Not lexicographic: the last group is fastest, then the first, then the second.
  CHECK(slurm::expand_hostlist("a[1-2]b[3-4]c[5-6]") ==
        Hosts{"a1b3c5", "a1b3c6", "a2b3c5", "a2b3c6", "a1b4c5", "a1b4c6", "a2b4c5", "a2b4c6"});
  CHECK(slurm::expand_hostlist("a[1-2]b[3-4]c[5-6]d[7-8]") ==
        Hosts{"a1b3c5d7", "a1b3c5d8", "a2b3c5d7", "a2b3c5d8", "a1b4c5d7", "a1b4c5d8", "a2b4c5d7",
              "a2b4c5d8", "a1b3c6d7", "a1b3c6d8", "a2b3c6d7", "a2b3c6d8", "a1b4c6d7", "a1b4c6d8",
              "a2b4c6d7", "a2b4c6d8"});
  CHECK(slurm::expand_hostlist("a[1,3-4]b[5-6,9]") ==
        Hosts{"a1b5", "a1b6", "a1b9", "a3b5", "a3b6", "a3b9", "a4b5", "a4b6", "a4b9"});
  CHECK(slurm::expand_hostlist("a[1-2]b[3]") == Hosts{"a1b3", "a2b3"});
}

TEST_CASE("hostlist: the host limits are 65536 per range and in all") {
  const Hosts big = slurm::expand_hostlist("x[0-65535]");
  REQUIRE(big.size() == 65536);
  CHECK(big.front() == "x0");
  CHECK(big.back() == "x65535");
  CHECK(slurm::expand_hostlist("x[1-65536]").size() == 65536);
  CHECK(contains(expand_error("x[0-65536]"), "more than 65536 hosts"));
  CHECK(contains(expand_error("x[0-40000],y[0-40000]"), "more than 65536 hosts"));
  CHECK(contains(expand_error("x[0-300]y[0-300]"), "more than 65536 hosts"));
  CHECK(contains(expand_error("x[0-40000,0-40000]"), "more than 65536 hosts"));
  CHECK(contains(expand_error("x[0-18446744073709551615]"), "more than 65536 hosts"));
}

TEST_CASE("hostlist: malformed text is a SchedulerError quoting it and saying why") {
  struct Bad {
    std::string text;
    std::string why;
  };
  const std::vector<Bad> cases = {
      {"x[3-1]", "range '3-1' is descending"},
      {"x[]", "empty brackets"},
      {"x[1-2", "never closed"},
      {"x[1-2,y", "never closed"},
      {"x1-2]", "no matching '['"},
      {"x[1-2]]", "no matching '['"},
      {"]", "no matching '['"},
      {"x[1[2]]", "nested"},
      {"x[-1]", "negative"},
      {"x[1--2]", "negative"},
      {"x[1,,2]", "range ''"},
      {"x[1,]", "range ''"},
      {"x[1-]", "range '1-'"},
      {"x[-]", "range '-'"},
      {"x[1-2-3]", "range '1-2-3'"},
      {"x[a]", "range 'a'"},
      {"x[+1]", "range '+1'"},
      {"x[ 1-2]", "range ' 1-2'"},
      {"x[1 -2]", "range '1 -2'"},
      {"x[0x1]", "range '0x1'"},
      {"x[18446744073709551616]", "range '18446744073709551616'"},
      {"a,,b", "empty item"},
      {"a,", "empty item"},
      {",a", "empty item"},
      {"a, ,b", "empty item"},
      {",", "empty item"},
  };
  for (const Bad& bad : cases) {
    CAPTURE(bad.text);
    const std::string message = expand_error(bad.text);
    CHECK(contains(message, "hostlist '" + bad.text + "'"));
    CHECK(contains(message, bad.why));
  }
  CHECK_THROWS_AS(slurm::expand_hostlist("x[3-1]"), hvd::SchedulerError);
}

TEST_CASE("hostlist: compress groups adjacent runs and keeps order and padding") {
  CHECK(slurm::compress_hostlist({}) == "");
  CHECK(slurm::compress_hostlist({"login"}) == "login");
  CHECK(slurm::compress_hostlist({"nid5"}) == "nid5");
  CHECK(slurm::compress_hostlist({"a1", "a2", "a3"}) == "a[1-3]");
  CHECK(slurm::compress_hostlist({"nid001", "nid002", "nid003", "nid007", "login1", "login2"}) ==
        "nid[001-003,007],login[1-2]");
  CHECK(slurm::compress_hostlist({"tux8", "tux9", "tux10"}) == "tux[8-10]");
  CHECK(slurm::compress_hostlist({"tux08", "tux9"}) == "tux[08,9]");
  CHECK(slurm::compress_hostlist({"x3", "x2", "x1"}) == "x[3,2,1]");
  CHECK(slurm::compress_hostlist({"x1", "x1"}) == "x[1,1]");
  CHECK(slurm::compress_hostlist({"a", "b", "a"}) == "a,b,a");
  CHECK(slurm::compress_hostlist({"a1", "b1", "a2"}) == "a1,b1,a2");
  CHECK(slurm::compress_hostlist({"n1-ib", "n2-ib"}) == "n1-ib,n2-ib");  // no suffix for 22.05
  CHECK(slurm::compress_hostlist({"1", "2"}) == "[1-2]");
}

TEST_CASE("hostlist: compress inverts expand") {
  const std::vector<std::string> texts = {"gpu[01-03]",
                                          "nid[1-3,007]",
                                          "tux[8-011]",
                                          "node[1-3,2]",
                                          "a[1-2]b[3-4]c[5-6]",
                                          "a,b,a",
                                          "x[098-100],x[1-2]",
                                          "x9,x10,x010,x011",
                                          "n[1-2]-ib",
                                          "[0-3]",
                                          "a1b,a2b",
                                          "x[99999999999-100000000000]",
                                          "x[18446744073709551614-18446744073709551615]",
                                          "x1234567890123456789012,x1234567890123456789013",
                                          "x[0-65535]"};
  for (const std::string& text : texts) {
    CAPTURE(text);
    const Hosts hosts = slurm::expand_hostlist(text);
    CAPTURE(slurm::compress_hostlist(hosts));
    CHECK(slurm::expand_hostlist(slurm::compress_hostlist(hosts)) == hosts);
  }
}

TEST_CASE("hostlist: compress refuses names no hostlist can spell") {
  for (const std::string bad : {"", "a[1]", "a]", "a,b", "a b", "a\tb", "a\nb"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(slurm::compress_hostlist({"ok1", bad}), hvd::InternalError);
  }
}

// Issue 10: the host cap was checked per bracket group, after each group was expanded, so a
// 901-byte SLURM_JOB_NODELIST of many groups allocated 65536 numbers per group (210 MB). The
// numbers of all groups of the text now share the cap, and the error comes at the group that
// passes it.
TEST_CASE("hostlist: the bracket groups of the whole list share one cap") {
  CHECK(contains(expand_error("a[0-40000]b[0-40000]"), "numbers in all"));
  CHECK(contains(expand_error("a[0-40000],b[0-40000]"), "numbers in all"));
  std::string many_groups = "n";
  while (many_groups.size() < 890) many_groups += "[0-65535]";
  CHECK(many_groups.size() <= 901);
  CHECK(contains(expand_error(many_groups), "numbers in all"));
  CHECK(slurm::expand_hostlist("a[1-100]b[1-100]").size() == 10000);  // real lists still expand
}

TEST_CASE("hostlist: a host name longer than 255 characters is refused") {
  const std::string prefix(300, 'x');
  CHECK(contains(expand_error(prefix + "[1-2]"), "is longer than 255 characters"));
  CHECK(contains(expand_error(prefix), "is longer than 255 characters"));
  CHECK(slurm::expand_hostlist(std::string(255, 'y')).size() == 1);
}

TEST_CASE("hostlist: a long list is quoted cut short in its error") {
  std::string many_groups = "n";
  while (many_groups.size() < 890) many_groups += "[0-65535]";
  const std::string error = expand_error(many_groups);
  CHECK(error.rfind("hostlist '" + many_groups.substr(0, 100) + "...' (" +
                        std::to_string(many_groups.size()) + " chars): more than 65536 hosts",
                    0) == 0);
  CHECK(expand_error("x[3-1]") == "hostlist 'x[3-1]': range '3-1' is descending");
}
