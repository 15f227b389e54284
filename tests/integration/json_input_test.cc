// SPDX-License-Identifier: Apache-2.0
// Every JSON input of hvdrun, mutated value by value (support/json_mutations.h): each field and
// element replaced with a value of every other JSON type, and numbers with huge ones. Whatever
// the file holds, the command either works as it does on the valid file or refuses it with one
// line and exit 3 (a ConfigError), never an internal error (70) or a crash. A field the command
// reads is always refused, and the line names it by its JSON pointer.

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "integration/hvdrun_test_util.h"
#include "support/json_mutations.h"

using namespace hvd::test;
using nlohmann::json;

namespace {

const std::string kReportData = std::string(HVD_TEST_DATA_DIR) + "/report/";

// hvd-bench's fixture cut to its first op and two sizes: every value of it is mutated, and the
// full fixture has thousands.
json small_bench() {
  json doc = json::parse(read_text(kReportData + "bench-fixture.json"));
  json& op = doc.at("results").at(0);
  op.at("rows") = json::array({op.at("rows").at(0), op.at("rows").at(1)});
  for (json& row : op.at("rows")) row.at("impls") = {{"hvd", row.at("impls").at("hvd")}};
  doc.at("results") = json::array({op});
  doc.erase("scenarios");
  return doc;
}

// Runs `args_for(path)` on each mutation of `doc`; `read` are the pointers the command reads.
template <typename Args>
void check_mutations(const json& doc, const std::set<std::string>& read, Args args_for) {
  TempDir dir;
  const std::string path = dir.file("input.json");
  write_text(path, doc.dump(1));
  const int valid_exit = run(hvdrun(args_for(path, dir))).exit_code;
  for (const JsonMutation& m : json_mutations(doc)) {
    write_text(path, m.doc.dump(1));
    const ProcessResult r = run(hvdrun(args_for(path, dir)));
    const std::string line = only_line(r.err);
    CAPTURE(m.pointer);
    CAPTURE(m.what);
    CAPTURE(r.err);
    if (r.exit_code == valid_exit && read.count(m.pointer) == 0) continue;
    CHECK(r.exit_code == 3);
    CHECK(line.rfind("hvdrun: error: " + path + ": ", 0) == 0);
    // null is where an optional value is left out ("time_us": null: a size not timed), so a
    // null there may be refused for what it leaves missing rather than by its own name.
    if (read.count(m.pointer) != 0 && m.what != "null") {
      CHECK(line.find(m.pointer) != std::string::npos);
    }
  }
}

}  // namespace

TEST_CASE("json inputs: predict --train refuses every mistyped field of hvd-train JSON") {
  const std::set<std::string> read = {"/tool",
                                      "/ranks",
                                      "/batch_per_rank",
                                      "/img_per_sec_per_rank",
                                      "/img_per_sec_per_rank/mean",
                                      "/parameters",
                                      "/layers",
                                      "/layers/0",
                                      "/layers/1",
                                      "/layers/2"};
  check_mutations(json::parse(read_text(kReportData + "train-np1.json")), read,
                  [](const std::string& path, const TempDir&) {
                    return std::vector<std::string>{"predict", "--train", path, "--nodes", "1"};
                  });
}

TEST_CASE("json inputs: predict --intra refuses every mistyped field of hvd-bench JSON") {
  const std::set<std::string> read = {"/tool",
                                      "/ranks",
                                      "/results",
                                      "/results/0",
                                      "/results/0/op",
                                      "/results/0/rows",
                                      "/results/0/rows/0",
                                      "/results/0/rows/0/bytes",
                                      "/results/0/rows/0/impls",
                                      "/results/0/rows/0/impls/hvd",
                                      "/results/0/rows/0/impls/hvd/time_us"};
  check_mutations(small_bench(), read, [](const std::string& path, const TempDir&) {
    return std::vector<std::string>{"predict", "--train", kReportData + "train-np1.json",
                                    "--intra", path,      "--ranks-per-node",
                                    "2",       "--nodes", "1"};
  });
}

// hvdrun report names a field as results[0].rows[1].bytes (report/report_data.cc); what is
// checked here is that every mistake ends in exit 3 with one line, as for predict.
TEST_CASE("json inputs: report refuses mistyped hvd-bench and hvd-train JSON with exit 3") {
  const auto args = [](const std::string& path, const TempDir& dir) {
    return std::vector<std::string>{"report", path, "-o", dir.file("plots"), "--format", "svg"};
  };
  check_mutations(small_bench(), {}, args);
  check_mutations(json::parse(read_text(kReportData + "train-np1.json")), {}, args);
}
