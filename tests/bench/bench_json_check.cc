// SPDX-License-Identifier: Apache-2.0
// bench_json_check FILE IMPL[,IMPL...]: checks an hvd-bench --check --json file: the shared
// format (tool, ranks, hosts, layer, backend, results[].rows[].impls), every listed
// implementation present in every row with positive times, and "wrong" == 0 everywhere.
// Prints one line per problem and exits 1 if there was any; no timing is judged.

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

int problems = 0;
void fail(const std::string& what) {
  std::cerr << "bench_json_check: " << what << std::endl;
  ++problems;
}

void check_impl(const nlohmann::json& impl, const std::string& where) {
  for (const char* key : {"time_us", "algbw_GBps", "busbw_GBps"}) {
    if (!impl.contains(key) || !impl[key].is_number()) fail(where + ": no number " + key);
  }
  if (impl.contains("time_us") && impl["time_us"].is_number() && !(impl["time_us"] > 0.0)) {
    fail(where + ": time_us is not positive");
  }
  if (!impl.contains("wrong") || !impl["wrong"].is_number_integer()) {
    fail(where + ": wrong is not a count (was the run made with --check?)");
  } else if (impl["wrong"] != 0) {
    fail(where + ": " + impl["wrong"].dump() + " wrong elements");
  }
}

void check_doc(const nlohmann::json& doc, const std::vector<std::string>& impls) {
  if (doc.value("tool", "") != "hvd-bench") fail("tool is not hvd-bench");
  for (const char* key : {"ranks", "hosts"}) {
    if (!doc.contains(key) || !doc[key].is_number_integer()) fail(std::string("no ") + key);
  }
  for (const char* key : {"layer", "backend", "dtype", "redop"}) {
    if (!doc.contains(key) || !doc[key].is_string()) fail(std::string("no ") + key);
  }
  if (!doc.contains("scenarios") || !doc["scenarios"].is_object()) fail("no scenarios object");
  if (!doc.contains("results") || doc["results"].empty()) return fail("no results");
  for (const auto& op : doc["results"]) {
    const std::string name = op.value("op", "?");
    if (!op.contains("rows") || op["rows"].empty()) fail(name + ": no rows");
    for (const auto& row : op.value("rows", nlohmann::json::array())) {
      const std::string where = name + " " + row.value("bytes", nlohmann::json(0)).dump() + " B";
      if (!row.contains("count") || !row["count"].is_number_integer()) fail(where + ": no count");
      for (const std::string& impl : impls) {
        if (!row.contains("impls") || !row["impls"].contains(impl)) {
          fail(where + ": no " + impl);
        } else {
          check_impl(row["impls"][impl], where + " " + impl);
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: bench_json_check FILE IMPL[,IMPL...]" << std::endl;
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "bench_json_check: cannot read " << argv[1] << std::endl;
    return 1;
  }
  try {
    check_doc(nlohmann::json::parse(in), split(argv[2]));
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("invalid JSON: ") + e.what());
  }
  if (problems == 0) std::cout << "PASS: " << argv[1] << std::endl;
  return problems == 0 ? 0 : 1;
}
