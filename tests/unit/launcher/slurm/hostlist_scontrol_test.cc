// SPDX-License-Identifier: Apache-2.0
// Checks expand_hostlist() and compress_hostlist() against the real `scontrol show hostnames`
// on many generated expressions. scontrol refuses to start without a Slurm config, so each case
// writes a throwaway two-line one and points SLURM_CONF at it; no daemon is contacted. Cases
// are skipped where scontrol is not installed.

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "hvd/error.h"
#include "slurm/hostlist.h"

namespace slurm = hvd::launcher::slurm;
using Hosts = std::vector<std::string>;

namespace {

constexpr std::uint32_t kSeed = 20240611;
constexpr int kExpressions = 200;

bool has_scontrol() {
  const char* path = std::getenv("PATH");
  std::string dirs = path == nullptr ? "" : path;
  for (size_t start = 0; start <= dirs.size();) {
    const size_t colon = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, colon - start);
    if (!dir.empty() && access((dir + "/scontrol").c_str(), X_OK) == 0) return true;
    start = colon + 1;
  }
  return false;
}

// A throwaway slurm.conf for the life of the object, and scontrol runs that use it.
class Scontrol {
 public:
  Scontrol() {
    char name[] = "/tmp/hvd-scontrol-probe-XXXXXX";
    const int fd = mkstemp(name);
    REQUIRE(fd >= 0);
    conf_path_ = name;
    const std::string conf = "ClusterName=probe\nSlurmctldHost=localhost\n";
    const ssize_t written = write(fd, conf.data(), conf.size());
    close(fd);
    REQUIRE(written == static_cast<ssize_t>(conf.size()));
  }
  ~Scontrol() { unlink(conf_path_.c_str()); }
  Scontrol(const Scontrol&) = delete;
  Scontrol& operator=(const Scontrol&) = delete;

  /// The lines `scontrol show hostnames EXPR` prints, stderr included (where 22.05 reports
  /// "Invalid hostlist", with exit status 0).
  Hosts hostnames(const std::string& expr) const {
    REQUIRE(expr.find('\'') == std::string::npos);
    const std::string command =
        "SLURM_CONF='" + conf_path_ + "' scontrol show hostnames '" + expr + "' 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string output;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
    pclose(pipe);
    Hosts lines;
    for (size_t start = 0; start < output.size();) {
      const size_t newline = std::min(output.find('\n', start), output.size());
      lines.push_back(output.substr(start, newline - start));
      start = newline + 1;
    }
    return lines;
  }

 private:
  std::string conf_path_;
};

// Random hostlist expressions in the 22.05 grammar (no text after a ']'), kept small.
class ExprGenerator {
 public:
  explicit ExprGenerator(std::uint32_t seed) : rng_(seed) {}

  /// One to four items separated by ',' or ' '; an item may repeat an earlier one.
  std::string list() {
    std::string text;
    const int items = pick(1, 4);
    for (int i = 0; i < items; ++i) {
      if (i > 0) text += pick(0, 4) == 0 ? " " : ",";
      text += item();
    }
    return text;
  }

 private:
  int pick(int lo, int hi) {
    return lo + static_cast<int>(rng_() % static_cast<std::uint32_t>(hi - lo + 1));
  }

  // Host-name text; a leading letter keeps scontrol from reading the argument as an option.
  std::string name_text(int min_len, int max_len, bool letter_first) {
    static const std::string kLetters = "abcdefghijklmnopqrstuvwxyz";
    static const std::string kChars = kLetters + "0123456789-_";
    std::string text;
    const int len = pick(min_len, max_len);
    for (int i = 0; i < len; ++i) {
      const std::string& set = (i == 0 && letter_first) ? kLetters : kChars;
      text += set[static_cast<size_t>(pick(0, static_cast<int>(set.size()) - 1))];
    }
    return text;
  }

  enum class Padding { kOften, kRarely };

  // A number, sometimes zero-padded beyond its digits.
  std::string number(int value, Padding padding) {
    std::string digits = std::to_string(value);
    if (pick(0, padding == Padding::kOften ? 1 : 4) == 0) {
      digits.insert(0, static_cast<size_t>(pick(1, 3)), '0');
    }
    return digits;
  }

  // The inside of one bracket group: one to three ranges or singletons, maybe a repeat.
  std::string group(int max_span) {
    std::vector<std::string> ranges;
    const int count = pick(1, 3);
    for (int r = 0; r < count; ++r) {
      if (!ranges.empty() && pick(0, 5) == 0) {
        ranges.push_back(ranges[static_cast<size_t>(pick(0, static_cast<int>(ranges.size()) - 1))]);
        continue;
      }
      const int lo = pick(0, 120);
      std::string range = number(lo, Padding::kOften);
      if (pick(0, 2) != 0) range += "-" + number(lo + pick(0, max_span), Padding::kRarely);
      ranges.push_back(range);
    }
    std::string text;
    for (const std::string& range : ranges) text += (text.empty() ? "" : ",") + range;
    return text;
  }

  std::string item() {
    const int kind = pick(0, 9);
    std::string text;
    if (kind <= 1 && !previous_.empty()) {
      text = previous_[static_cast<size_t>(pick(0, static_cast<int>(previous_.size()) - 1))];
    } else if (kind <= 2) {
      text = name_text(1, 6, true) + (pick(0, 1) == 0 ? number(pick(0, 999), Padding::kOften) : "");
    } else {
      const int groups = pick(1, 3);
      text = name_text(1, 5, true);
      for (int g = 0; g < groups; ++g) {
        if (g > 0) text += name_text(0, 2, false);
        text += "[" + group(groups == 1 ? 12 : 3) + "]";
      }
    }
    previous_.push_back(text);
    return text;
  }

  std::mt19937 rng_;
  std::vector<std::string> previous_;  // earlier items, for duplicates
};

}  // namespace

TEST_CASE("hostlist vs scontrol: generated expressions expand identically" *
          doctest::skip(!has_scontrol())) {
  const Scontrol scontrol;
  ExprGenerator generator(kSeed);
  size_t total_hosts = 0;
  for (int i = 0; i < kExpressions; ++i) {
    const std::string expr = generator.list();
    CAPTURE(expr);
    const Hosts ours = slurm::expand_hostlist(expr);
    CHECK(ours == scontrol.hostnames(expr));
    total_hosts += ours.size();
  }
  MESSAGE(kExpressions, " expressions, ", total_hosts, " hosts compared with scontrol");
}

TEST_CASE("hostlist vs scontrol: compressed lists expand back identically" *
          doctest::skip(!has_scontrol())) {
  const Scontrol scontrol;
  ExprGenerator generator(kSeed + 1);
  for (int i = 0; i < kExpressions; ++i) {
    const Hosts hosts = slurm::expand_hostlist(generator.list());
    const std::string compressed = slurm::compress_hostlist(hosts);
    CAPTURE(compressed);
    CHECK(slurm::expand_hostlist(compressed) == hosts);
    CHECK(scontrol.hostnames(compressed) == hosts);
  }
}

TEST_CASE("hostlist vs scontrol: the documented forms agree" * doctest::skip(!has_scontrol())) {
  const Scontrol scontrol;
  for (const std::string expr :
       {"tux[08-11]", "tux[8-011]", "nid[1-3,007]", "node[1-3,2]", "a[1-2]b[3-4]",
        "a[1-2]b[3-4]c[5-6]", "a[1-2]b[3-4]c[5-6]d[7-8]", "a[1-2][3-4]", "[1-2]", "x[0-65535]",
        "a,b c\td\ne", "x[00-1]", "x[99999999999-100000000000]"}) {
    CAPTURE(expr);
    CHECK(slurm::expand_hostlist(expr) == scontrol.hostnames(expr));
  }
}

TEST_CASE("hostlist vs scontrol: both reject the documented errors" *
          doctest::skip(!has_scontrol())) {
  const Scontrol scontrol;
  for (const std::string expr :
       {"x[3-1]", "x[]", "x[0-65536]", "x[-1]", "x[1,,2]", "x[1x]", "x[1-2]]", "x[1[2]]"}) {
    CAPTURE(expr);
    const Hosts lines = scontrol.hostnames(expr);
    REQUIRE_FALSE(lines.empty());
    CHECK(lines.back() == "Invalid hostlist: " + expr);
    CHECK_THROWS_AS(slurm::expand_hostlist(expr), hvd::SchedulerError);
  }
}

// Where scontrol 22.05 accepts something odd, we refuse it; report what scontrol made of it so
// a change in a newer Slurm shows up in the test log rather than as a failure.
TEST_CASE("hostlist vs scontrol: text 22.05 accepts but we reject" *
          doctest::skip(!has_scontrol())) {
  const Scontrol scontrol;
  for (const std::string expr : {"x[1-2", "x1-2]", "x[1-]", "x[ 1-2]", "a,,b", "a,", ",a"}) {
    CAPTURE(expr);
    std::string theirs;
    for (const std::string& line : scontrol.hostnames(expr)) theirs += line + " ";
    MESSAGE("scontrol show hostnames '", expr, "' -> ", theirs);
    CHECK_THROWS_AS(slurm::expand_hostlist(expr), hvd::SchedulerError);
  }
}
