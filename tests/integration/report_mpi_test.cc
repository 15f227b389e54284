// SPDX-License-Identifier: Apache-2.0
// `hvdrun report` and `hvdrun --mpi` from the outside: their errors (exit code, one line that
// says what to do), a failed report writing nothing, and the mpirun line in --dry-run. Drawing
// the pictures is checked by tests/report/check_report.py; running mpirun by tests/frameworks.

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;

namespace {

const std::string kData = std::string(HVD_TEST_DATA_DIR) + "/report/";

// A PATH under which hvdrun finds nothing of its helpers (gnuplot, mpirun).
const std::map<std::string, std::string> kEmptyPath = {{"PATH", "/nonexistent"}};

void expect_error(const ProcessResult& r, int code, const std::string& mentions) {
  CAPTURE(mentions);
  CHECK(r.exit_code == code);
  const std::string line = only_line(r.err);
  CHECK_MESSAGE(line.rfind("hvdrun: error: ", 0) == 0, line);
  CHECK_MESSAGE(line.find(mentions) != std::string::npos, line);
  CHECK(r.out.empty());
}

bool empty_dir(const std::string& path) {
  return !std::filesystem::exists(path) || std::filesystem::is_empty(path);
}

// The preflight fixture with `edit` applied, written to `path`.
void write_preflight(const std::string& path, const std::function<void(json&)>& edit) {
  json doc = json::parse(read_text(kData + "preflight-fixture.json"));
  edit(doc);
  std::ofstream(path) << doc.dump(2);
}

}  // namespace

TEST_CASE("report: a missing or invalid JSON names the file, exits 3 and writes nothing") {
  TempDir dir;
  expect_error(
      run(hvdrun({"report", kData + "bench-fixture.json", kData + "nope.json", "-o", dir.path()})),
      3, "nope.json: cannot open the file");
  expect_error(run(hvdrun({"report", kData + "broken.json", "-o", dir.path()})), 3,
               "broken.json: not valid JSON");
  expect_error(
      run(hvdrun({"report", kData + "other-tool.json", "-o", dir.path()})), 3,
      "other-tool.json: not hvd-bench, hvd-train, hvdrun predict or hvdrun preflight JSON");
  CHECK(empty_dir(dir.path()));
}

TEST_CASE("report: a malformed preflight verdict is one line naming the file and field, exit 3") {
  TempDir dir;
  write_preflight(dir.file("pf.json"), [](json& d) { d["nodes"][1]["memory_gbps"] = "fast"; });
  expect_error(run(hvdrun({"report", dir.file("pf.json"), "-o", dir.file("plots")})), 3,
               "pf.json: nodes[1].memory_gbps must be a number, not string");
  write_preflight(dir.file("pf.json"), [](json& d) { d["links"][0]["a"] = "node1\nset output"; });
  expect_error(run(hvdrun({"report", dir.file("pf.json"), "-o", dir.file("plots")})), 3,
               "pf.json: links[0].a must be a host name");
  CHECK(empty_dir(dir.file("plots")));
}

// Host names come from the file and reach gnuplot as titles and tic labels: quoted, they are
// drawn as written and run nothing (backquotes, system(), @macros, % formats, quotes).
TEST_CASE("report: a preflight host name holding gnuplot syntax is drawn, not run" *
          doctest::skip(!std::filesystem::exists("/usr/bin/gnuplot"))) {
  TempDir dir;
  const std::string marker = dir.file("ran");
  // The start is what the tic labels show (gnuplot cuts them at about 50 characters).
  const std::string shown = "n2 %s %d @m $1 '`touch ";
  const std::string host = shown + marker + "`'\" ; system(\"touch " + marker + "\") ; print '";
  write_preflight(dir.file("pf.json"), [&](json& d) {
    d["nodes"][1]["host"] = host;
    d["links"][0]["b"] = host;
    d["flagged_hosts"] = json::array({host});
  });
  const ProcessResult r =
      run(hvdrun({"report", dir.file("pf.json"), "-o", dir.file("plots"), "--format", "svg"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out == dir.file("plots/pf-preflight.svg") + "\n");
  CHECK_FALSE(std::filesystem::exists(marker));
  const std::string svg = read_text(dir.file("plots/pf-preflight.svg"));
  // Drawn literally in the title and in the tic labels of the two node and the two link panels
  // (gnuplot fails on %d in a tic label, and draws %s as the tic's value, unless % is doubled).
  size_t drawn = 0;
  for (size_t at = svg.find(shown); at != std::string::npos; at = svg.find(shown, at + 1)) ++drawn;
  CHECK(drawn == 5);
}

TEST_CASE("report: no gnuplot is a launch error that says what to install") {
  TempDir dir;
  expect_error(run(hvdrun({"report", kData + "train-np1.json", "-o", dir.path()}), kEmptyPath), 5,
               "apt-get install gnuplot-nox");
  CHECK(empty_dir(dir.path()));
}

TEST_CASE("report: an unknown --format is a usage error") {
  expect_error(run(hvdrun({"report", kData + "train-np1.json", "--format", "png,jpeg"})), 2,
               "--format: unknown format 'jpeg'");
}

TEST_CASE("--mpi: no mpirun is a launch error that says what to install") {
  expect_error(run(hvdrun({"--mpi", "-np", "2", "--", "/bin/true"}), kEmptyPath), 5,
               "apt-get install openmpi-bin");
}

TEST_CASE("--mpi cannot give each rank its own TF_CONFIG") {
  expect_error(run(hvdrun({"--mpi", "--tf-config", "-np", "2", "--", "/bin/true"})), 2,
               "--tf-config cannot be used with --mpi");
}

TEST_CASE("--tf-config --dry-run: every rank's TF_CONFIG lists all workers, each port once") {
  const ProcessResult r = run(hvdrun({"--tf-config", "-np", "3", "--dry-run", "--", "/bin/true"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json plan = json::parse(r.out);
  std::set<std::string> workers;
  for (int rank = 0; rank < 3; ++rank) {
    const json tf =
        json::parse(plan.at("ranks").at(rank).at("env").at("TF_CONFIG").get<std::string>());
    CHECK(tf.at("task").at("index") == rank);
    CHECK(tf.at("cluster").at("worker") ==
          json::parse(plan.at("ranks").at(0).at("env").at("TF_CONFIG").get<std::string>())
              .at("cluster")
              .at("worker"));
    for (const auto& w : tf.at("cluster").at("worker")) workers.insert(w.get<std::string>());
  }
  CHECK(workers.size() == 3);
}

TEST_CASE("a flag before -np does not swallow it (options that take no value)") {
  const ProcessResult r = run(hvdrun({"--verbose", "-np", "2", "--dry-run", "--", "/bin/true"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(json::parse(r.out).at("size") == 2);
}

TEST_CASE("--mpi --dry-run prints the mpirun line with hvdrun's variables" *
          doctest::skip(!std::filesystem::exists("/usr/bin/mpirun"))) {
  const ProcessResult r = run(hvdrun({"--mpi", "-np", "3", "--bind-to", "core", "--dry-run",
                                      "--cycle-time-ms", "7", "--", "/bin/echo", "hi"}),
                              {{"PATH", "/usr/bin:/bin"}});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json plan = json::parse(r.out);
  CHECK(plan.at("mode") == "mpirun");
  const std::string line = plan.at("starter").at("line");
  CHECK(line.rfind("/usr/bin/mpirun -np 3 ", 0) == 0);
  CHECK(line.find("--bind-to core --tag-output") != std::string::npos);
  CHECK(line.find("-x HOROVOD_CYCLE_TIME=7") != std::string::npos);
  CHECK(line.find("-x MASTER_PORT=") != std::string::npos);
  CHECK(line.substr(line.size() - 12) == "/bin/echo hi");  // the program last, untouched
  CHECK((line.find("--allow-run-as-root") != std::string::npos) == (geteuid() == 0));
}

// One settings rule in every mode: HOROVOD_* exported before hvdrun is a layer under the flags.
// Before the modes shared one plan, --mpi ignored it and exported the default over it.
TEST_CASE("--mpi --dry-run: HOROVOD_* in the environment wins over the defaults, as locally" *
          doctest::skip(!std::filesystem::exists("/usr/bin/mpirun"))) {
  const ProcessResult r = run(hvdrun({"--mpi", "-np", "2", "--dry-run", "--", "/bin/true"}),
                              {{"PATH", "/usr/bin:/bin"}, {"HOROVOD_CYCLE_TIME", "5"}});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const json plan = json::parse(r.out);
  CHECK(plan.at("starter").at("env").at("HOROVOD_CYCLE_TIME") == "5");
  CHECK(plan.at("starter").at("line").get<std::string>().find("-x HOROVOD_CYCLE_TIME=5") !=
        std::string::npos);
  const ProcessResult local = run(hvdrun({"-np", "2", "--dry-run", "--", "/bin/true"}),
                                  {{"PATH", "/usr/bin:/bin"}, {"HOROVOD_CYCLE_TIME", "5"}});
  REQUIRE_MESSAGE(local.exit_code == 0, local.err);
  CHECK(json::parse(local.out).at("ranks").at(0).at("env").at("HOROVOD_CYCLE_TIME") == "5");
}

TEST_CASE("predict: a 1-rank run and an hvd-bench link give one row per rank count, and JSON") {
  TempDir dir;
  const ProcessResult r = run(hvdrun({"predict", "--train", kData + "train-np1.json", "--intra",
                                      kData + "bench-fixture.json", "--ranks-per-node", "1,2,4",
                                      "--nodes", "1", "--json", dir.file("p.json")}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // The fixture's sizes within 16x of the job's 1.6 MB of gradients (of 8).
  CHECK(r.out.find("fitted to 3 allreduce sizes (262144 to 16777216 B, near the job's 1628200 B)") !=
        std::string::npos);
  CHECK(r.out.find("assumptions:") != std::string::npos);
  const json p = json::parse(read_text(dir.file("p.json")));
  CHECK(p.at("tool") == "hvdrun predict");
  REQUIRE(p.at("rows").size() == 3);
  CHECK(p.at("rows").at(0).at("efficiency") == 1.0);  // one rank is the measurement
  CHECK(p.at("rows").at(2).at("ranks") == 4);
  CHECK(p.at("rows").at(2).at("efficiency").get<double>() < 1.0);
  CHECK(p.at("rows").at(2).at("samples_per_sec").get<double>() >
        p.at("rows").at(1).at("samples_per_sec").get<double>());
  if (std::filesystem::exists("/usr/bin/gnuplot")) {  // hvdrun report draws it
    const ProcessResult drawn =
        run(hvdrun({"report", dir.file("p.json"), "-o", dir.file("plots"), "--format", "svg"}));
    REQUIRE_MESSAGE(drawn.exit_code == 0, drawn.err);
    CHECK(std::filesystem::file_size(dir.file("plots/p-predicted.svg")) > 0);
  }
}

TEST_CASE("predict: what it cannot start from is refused with one line") {
  expect_error(run(hvdrun({"predict", "--train", kData + "train-np2.json"})), 3,
               "predict starts from a 1-rank run");
  expect_error(run(hvdrun({"predict", "--train", kData + "broken.json"})), 3, "not JSON");
  expect_error(run(hvdrun({"predict", "--train", kData + "train-np1.json", "--nodes", "1,2"})), 2,
               "node counts above 1 need the network");
  expect_error(run(hvdrun({"predict", "--gradient-mb", "5"})), 2, "give --train FILE");
  expect_error(run(hvdrun({"predict", "--train", kData + "train-np1.json", "--intra",
                           kData + "other-tool.json", "--nodes", "1", "--ranks-per-node", "2"})),
               3, "not hvd-bench JSON");
}
