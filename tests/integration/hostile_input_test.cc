// SPDX-License-Identifier: Apache-2.0
// Issue 10 from the outside: inputs that once ran code (hvdrun report through gnuplot, batch
// scripts through newlines), crashed (exit 70) or followed a planted symlink now give one clear
// line with the right exit code, or a safe result, and leave no stray file.

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kData = std::string(HVD_TEST_DATA_DIR) + "/report/";

json bench_doc(const std::string& backend, const std::string& op) {
  return {{"tool", "hvd-bench"},
          {"ranks", 2},
          {"hosts", 1},
          {"backend", backend},
          {"dtype", "float32"},
          {"results",
           json::array(
               {{{"op", op},
                 {"rows",
                  json::array({{{"bytes", 8}, {"impls", {{"hvd", {{"busbw_GBps", 1.0}}}}}}})}}})}};
}

void expect_one_line(const ProcessResult& r, int code, const std::string& says) {
  CAPTURE(r.err);
  CHECK(r.exit_code == code);
  CHECK(only_line(r.err).find(says) != std::string::npos);
}

}  // namespace

TEST_CASE("report: a backend of ring`touch X` runs nothing and writes nothing" *
          doctest::skip(!fs::exists("/usr/bin/gnuplot"))) {
  TempDir dir;
  const std::string marker = dir.file("X");
  for (const std::string& backend :
       {"ring`touch " + marker + "`", "a\" ; system(\"touch " + marker + "\") ; \"",
        "a'\nsystem('touch " + marker + "')\n'"}) {
    CAPTURE(backend);
    write_text(dir.file("in.json"), bench_doc(backend, "allreduce").dump());
    const ProcessResult r = run(hvdrun({"report", dir.file("in.json"), "-o", dir.file("out")}),
                                {{"PATH", "/usr/bin:/bin"}});
    expect_one_line(r, 3, "in.json: the top level.backend may hold only");
    CHECK_FALSE(fs::exists(marker));
    CHECK_FALSE(fs::exists(dir.file("out")));
  }
  write_text(dir.file("op.json"),
             bench_doc("ring", "x'\nsystem('touch " + marker + "')\n'").dump());
  expect_one_line(run(hvdrun({"report", dir.file("op.json"), "-o", dir.file("out")})), 3,
                  "results[0].op must be a name");
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("report: a file name with quotes draws safely under a cleaned-up name" *
          doctest::skip(!fs::exists("/usr/bin/gnuplot"))) {
  TempDir dir;
  const std::string input = dir.file("it's `x`.json");
  write_text(input, bench_doc("ring/shm", "allreduce").dump());
  const ProcessResult r = run(hvdrun({"report", input, "-o", dir.path(), "--format", "svg"}),
                              {{"PATH", "/usr/bin:/bin"}});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(fs::file_size(dir.file("it_s__x_-allreduce.svg")) > 0);
}

TEST_CASE("report: JSON fields of the wrong type exit 3, not 70") {
  TempDir dir;
  json doc = bench_doc("ring", "allreduce");
  doc["results"] = "all of them";
  write_text(dir.file("types.json"), doc.dump());
  expect_one_line(run(hvdrun({"report", dir.file("types.json"), "-o", dir.path()})), 3,
                  "types.json: the top level.results must be a list, not string");
  std::ifstream train(kData + "train-np1.json");
  json t = json::parse(train);
  t["ranks"] = "1";
  write_text(dir.file("train.json"), t.dump());
  expect_one_line(run(hvdrun({"report", dir.file("train.json"), "-o", dir.path()})), 3,
                  "train.json: the top level.ranks must be a number, not string");
}

TEST_CASE("-np 2147483647 --dry-run is a usage error with the limit") {
  expect_one_line(run(hvdrun({"-np", "2147483647", "--dry-run", "--", "/bin/true"})), 2,
                  "-np 2147483647: hvdrun starts at most 131072 ranks");
}

TEST_CASE("sbatch: a newline in -J is refused and no script is written") {
  TempDir dir;
  const ProcessResult r =
      run(hvdrun({"sbatch", "--profile", "neuron", "-t", "10", "-J", "x\ntouch /tmp/pwned", "-o",
                  dir.file("job.sh"), "--", "/bin/true"}));
  expect_one_line(r, 2, "-J/--job-name: the value holds a newline at offset 1");
  CHECK(fs::is_empty(dir.path()));
}

// Issue 10: `path + ".tmp-hvdrun"` let another user's symlink make hvdrun overwrite the file it
// pointed at.
TEST_CASE("sbatch -o: a symlink planted at the old temporary name is not followed") {
  TempDir dir;
  const std::string victim = dir.file("victim");
  write_text(victim, "keep me");
  chmod(victim.c_str(), 0600);
  fs::create_symlink(victim, dir.file("job.sh.tmp-hvdrun"));
  const ProcessResult r = run(hvdrun(
      {"sbatch", "--profile", "neuron", "-t", "10", "-o", dir.file("job.sh"), "--", "/bin/true"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_text(victim) == "keep me");
  CHECK(read_text(dir.file("job.sh")).rfind("#!/bin/bash\n", 0) == 0);
  CHECK(fs::is_symlink(dir.file("job.sh.tmp-hvdrun")));  // left alone, not ours
}

TEST_CASE("sbatch: container words from a profile are one argument each") {
  TempDir dir;
  write_text(
      dir.file("wrapped.yaml"),
      "name: wrapped\nnode: {gpus: 0}\nsetup: {container: [apptainer, exec, \"my image.sif\"]}\n");
  const ProcessResult r = run(hvdrun(
      {"sbatch", "--profile", dir.file("wrapped.yaml"), "-t", "10", "--", "python3", "train.py"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find(" -- apptainer exec 'my image.sif' python3 train.py\n") != std::string::npos);
}

// The run id is no secret (it names the run's segments in /dev/shm while the ranks set up, and
// has 16 random bits): a checkpoint-notice file named after it alone let another user plant the
// notice and make every rank checkpoint and stop.
TEST_CASE("checkpoint notice: a file planted at the run id's name is not the ranks' notice") {
  const std::string rank_script =
      "planted=/dev/shm/hvd-$HVD_RUN_ID-checkpoint\n"
      "echo \"run $HVD_RUN_ID\"\n"
      "case \"$HVD_CHECKPOINT_FILE\" in /dev/shm/hvd-$HVD_RUN_ID-checkpoint-*) ;; "
      "*) echo \"unexpected name $HVD_CHECKPOINT_FILE\" ;; esac\n"
      ": > \"$planted\"\n"
      "if test -e \"$HVD_CHECKPOINT_FILE\"; then echo \"notice seen at $HVD_CHECKPOINT_FILE\"; "
      "else echo no-notice; fi\n";
  const ProcessResult r = run(hvdrun({"-np", "2", "--", "/bin/sh", "-c", rank_script}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CAPTURE(r.out);
  int quiet = 0;
  std::string run_id;
  for (const std::string& line : split_lines(r.out)) {
    const std::string text = parse_tag(line).text;
    quiet += text == "no-notice";
    if (text.rfind("run ", 0) == 0) run_id = text.substr(4);
  }
  CHECK(quiet == 2);
  CHECK(r.out.find("notice seen") == std::string::npos);
  CHECK(r.out.find("unexpected name") == std::string::npos);
  // The planted file (this user's, here) went with the run's other /dev/shm files.
  REQUIRE_FALSE(run_id.empty());
  CHECK_FALSE(fs::exists("/dev/shm/hvd-" + run_id + "-checkpoint"));
}
