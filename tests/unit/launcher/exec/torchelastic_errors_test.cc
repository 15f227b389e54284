// SPDX-License-Identifier: Apache-2.0
#include "exec/torchelastic_errors.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hvd/error.h"
#include "plan/rank_error_file.h"

namespace exec = hvd::launcher::exec;
namespace plan = hvd::launcher::plan;
using nlohmann::json;

namespace {

// What torch's ErrorHandler.record_exception writes for a rank decorated with @record.
json recorded_by_torch() {
  json extra = {{"py_callstack", "Traceback ...\nValueError: bad batch\n"},
                {"timestamp", "1700000000"}};
  json out = json::object();
  out["message"] = {{"message", "ValueError: bad batch"}, {"extraInfo", extra}};
  return out;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct TempFolder {
  std::string path;
  TempFolder() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hvd-te-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempFolder() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("torchelastic errors: the rank's own record gets torchrun's errorCode") {
  const json out = exec::parent_error_json(recorded_by_torch(), 3, "rank 1 exited", 5);
  CHECK(out["message"]["message"] == "ValueError: bad batch");
  CHECK(out["message"]["errorCode"] == 3);
  CHECK(out["message"]["extraInfo"]["timestamp"] == "1700000000");
  SUBCASE("torchrun leaves a string message, the newer form, as it is") {
    json text_form = {{"message", "oops"}, {"timestamp", "1"}};
    CHECK(exec::parent_error_json(text_form, 3, "", 5) == text_form);
  }
}

TEST_CASE("torchelastic errors: without a rank record, hvdrun's own in torch's shape") {
  for (const json& rank_error : {json(), json::parse("[1]"), json::parse("{\"x\": 1}")}) {
    const json out = exec::parent_error_json(rank_error, 3, "rank 1 on box exited with code 3", 77);
    CHECK(out["message"]["message"] == "ChildFailedError: rank 1 on box exited with code 3");
    CHECK(out["message"]["extraInfo"]["py_callstack"] == "<N/A>");
    CHECK(out["message"]["extraInfo"]["timestamp"] == "77");  // a string, as torch writes it
  }
}

TEST_CASE("torchelastic errors: the failed rank's file reaches the user's") {
  TempFolder tmp;
  const std::string user_file = tmp.path + "/error.json";
  exec::RunOutcome failed{3, 0, "rank 1"};
  failed.failed_rank = 1;
  failed.failure = "rank 1 on box exited with code 3";
  std::string rank_dir;
  {
    exec::TorchelasticErrors errors({{"TORCHELASTIC_ERROR_FILE", user_file}},
                                    plan::Mode::kLocal);
    rank_dir = errors.rank_dir();
    REQUIRE(rank_dir.rfind(tmp.path + "/.hvdrun-errors-", 0) == 0);
    CHECK((std::filesystem::status(rank_dir).permissions() & std::filesystem::perms::all) ==
          std::filesystem::perms::owner_all);
    std::ofstream(plan::rank_error_file(rank_dir, 1, 1)) << recorded_by_torch().dump();
    errors.finish(failed, 1);
    const json out = json::parse(read(user_file));
    CHECK(out["message"]["message"] == "ValueError: bad batch");
    CHECK(out["message"]["errorCode"] == 3);
    SUBCASE("a rank that wrote nothing: hvdrun says what happened") {
      errors.finish(failed, 0);  // attempt 0 has no file
      CHECK(json::parse(read(user_file))["message"]["message"].get<std::string>().find(
                "rank 1 on box exited with code 3") != std::string::npos);
    }
  }
  CHECK_FALSE(std::filesystem::exists(rank_dir));  // removed with the object
}

TEST_CASE("torchelastic errors: nothing without the variable, a clean run or under mpirun") {
  TempFolder tmp;
  const std::string user_file = tmp.path + "/error.json";
  CHECK(exec::TorchelasticErrors({}, plan::Mode::kLocal).rank_dir().empty());
  CHECK(exec::TorchelasticErrors({{"TORCHELASTIC_ERROR_FILE", user_file}}, plan::Mode::kMpirun)
            .rank_dir()
            .empty());
  exec::TorchelasticErrors errors({{"TORCHELASTIC_ERROR_FILE", user_file}}, plan::Mode::kLocal);
  errors.finish(exec::RunOutcome{0, 0, ""}, 0);
  CHECK_FALSE(std::filesystem::exists(user_file));
}

TEST_CASE("torchelastic errors: a folder that cannot be written names the variable") {
  CHECK_THROWS_WITH_AS(exec::TorchelasticErrors({{"TORCHELASTIC_ERROR_FILE", "/proc/x/e.json"}},
                                                plan::Mode::kLocal),
                       doctest::Contains("TORCHELASTIC_ERROR_FILE=/proc/x/e.json"),
                       hvd::ConfigError);
}
