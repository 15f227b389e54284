// SPDX-License-Identifier: Apache-2.0
// Issue 23 from the outside: `hvdrun report` writes only into a folder of the user's own and runs
// gnuplot in a private scratch folder elsewhere; a preflight host name with any quote draws as
// written; `hvdrun sbatch --submit` gives up on an sbatch that does not answer.

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kFixture = std::string(HVD_TEST_DATA_DIR) + "/report/preflight-fixture.json";
const bool kHaveGnuplot = fs::exists("/usr/bin/gnuplot");
constexpr uid_t kNobody = 65534;

json fixture() {
  std::ifstream in(kFixture);
  return json::parse(in);
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("report: an output folder of another user is refused before gnuplot runs" *
          doctest::skip(geteuid() != 0)) {
  // Only root can make a folder another user's; the test runs as root in CI.
  TempDir dir;
  const std::string shared = dir.file("plots");
  fs::create_directory(shared);
  fs::permissions(shared, fs::perms::all);  // 0777, no sticky bit: a group folder at its worst
  REQUIRE(chown(shared.c_str(), kNobody, kNobody) == 0);
  const ProcessResult r =
      run(hvdrun({"report", kFixture, "-o", shared}), {{"PATH", "/usr/bin:/bin"}});
  CAPTURE(r.err);
  CHECK(r.exit_code == 5);
  CHECK(only_line(r.err).find("-o " + shared + ": the folder belongs to uid 65534, not to you") !=
        std::string::npos);
  CHECK(entries(shared).empty());  // no scratch folder, no picture
}

TEST_CASE("report: a symlink as -o is refused, a missing folder is made, the user's own") {
  TempDir dir;
  fs::create_directory(dir.file("real"));
  fs::create_directory_symlink(dir.file("real"), dir.file("link"));
  const ProcessResult r = run(hvdrun({"report", kFixture, "-o", dir.file("link")}));
  CHECK(r.exit_code == 5);
  CHECK(only_line(r.err).find("link: is a symlink") != std::string::npos);
  CHECK(entries(dir.file("real")).empty());
  if (!kHaveGnuplot) return;
  const std::string fresh = dir.file("new/plots");
  const ProcessResult made = run(hvdrun({"report", kFixture, "-o", fresh, "--format", "svg"}),
                                 {{"PATH", "/usr/bin:/bin"}});
  REQUIRE_MESSAGE(made.exit_code == 0, made.err);
  struct stat st {};
  REQUIRE(stat(fresh.c_str(), &st) == 0);
  CHECK(st.st_uid == geteuid());
  CHECK(entries(fresh) == std::vector<std::string>{"preflight-fixture-preflight.svg"});
}

TEST_CASE("report: the scratch folder is under TMPDIR, never in the output folder" *
          doctest::skip(!kHaveGnuplot)) {
  TempDir dir;
  fs::create_directory(dir.file("tmp"));
  fs::create_directory(dir.file("out"));
  // A gnuplot that records where it runs and what it finds there, then draws nothing.
  fs::create_directory(dir.file("bin"));
  write_text(dir.file("bin/gnuplot"), "#!/bin/sh\npwd -P > " + dir.file("cwd") + "\nls -a > " +
                                          dir.file("ls") + "\nexit 1\n");
  fs::permissions(dir.file("bin/gnuplot"), fs::perms::owner_all);
  const ProcessResult r =
      run(hvdrun({"report", kFixture, "-o", dir.file("out")}),
          {{"PATH", dir.file("bin") + ":/usr/bin:/bin"}, {"TMPDIR", dir.file("tmp")}});
  CHECK(r.exit_code == 5);
  std::ifstream cwd_in(dir.file("cwd"));
  std::string cwd;
  REQUIRE(std::getline(cwd_in, cwd));
  CHECK(fs::path(cwd).parent_path() == fs::canonical(dir.file("tmp")));
  CHECK(fs::path(cwd).filename().string().rfind("hvdrun-report-", 0) == 0);
  std::ifstream ls_in(dir.file("ls"));
  std::string listing((std::istreambuf_iterator<char>(ls_in)), {});
  CHECK(listing.find("report.gp") != std::string::npos);
  CHECK(entries(dir.file("out")).empty());
  CHECK(entries(dir.file("tmp")).empty());  // removed after the failure
}

TEST_CASE("report: preflight host names with quotes and shell syntax draw as written" *
          doctest::skip(!kHaveGnuplot)) {
  // Issue 23 #8: a name starting with ' or holding '' was a gnuplot syntax error (exit 5).
  TempDir dir;
  const std::string marker = dir.file("X");
  const std::vector<std::string> names = {"'lead",
                                          "a''b",
                                          "q\"uote",
                                          "back\\slash",
                                          "tick`touch " + marker + "`",
                                          "$(touch " + marker + ")",
                                          "at@macro;x",
                                          "n\xc3\xa9ud"};
  json doc = fixture();
  for (size_t i = 0; i < names.size(); ++i) {
    json node = doc["nodes"][i % doc["nodes"].size()];
    node["host"] = names[i];
    if (i >= doc["nodes"].size()) doc["nodes"].push_back(node);
    doc["nodes"][i] = node;
  }
  doc["links"] = json::array();
  doc["flagged_hosts"] = json::array();
  for (json& node : doc["nodes"]) node["flagged"] = false;
  write_text(dir.file("pf.json"), doc.dump());
  const ProcessResult r =
      run(hvdrun({"report", dir.file("pf.json"), "-o", dir.file("out"), "--format", "svg"}),
          {{"PATH", "/usr/bin:/bin"}});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::ifstream svg(dir.file("out/pf-preflight.svg"));
  const std::string text((std::istreambuf_iterator<char>(svg)), {});
  for (std::string name : names) {  // as SVG text: & < > " ' are entities there
    CAPTURE(name);
    std::string xml;
    for (char c : name) {
      xml += c == '&'   ? "&amp;"
             : c == '<' ? "&lt;"
             : c == '>' ? "&gt;"
             : c == '"' ? "&quot;"
                        : std::string(1, c);
    }
    const bool found = text.find(">" + xml + "<") != std::string::npos ||
                       text.find(">" + name + "<") != std::string::npos;
    CHECK(found);
  }
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("sbatch --submit: an sbatch that never answers is stopped at the timeout, exit 4") {
  TempDir dir;
  fs::create_directory(dir.file("bin"));
  // A hung slurmctld as the user sees it: sbatch reads the script and then waits.
  write_text(dir.file("bin/sbatch"),
             "#!/bin/sh\ncat > /dev/null\necho $$ > " + dir.file("pid") + "\nexec sleep 600\n");
  fs::permissions(dir.file("bin/sbatch"), fs::perms::owner_all);
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r =
      run(hvdrun({"sbatch", "--profile", "hvdtest", "-t", "10", "--submit", "--submit-timeout", "2",
                  "--", "/bin/true"}),
          {{"PATH", dir.file("bin") + ":/usr/bin:/bin"}}, std::chrono::seconds(60));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  CAPTURE(r.err);
  CHECK(r.exit_code == 4);
  CHECK(only_line(r.err).find("sbatch did not answer within 2 s") != std::string::npos);
  std::ifstream pid_in(dir.file("pid"));
  pid_t pid = 0;
  REQUIRE(static_cast<bool>(pid_in >> pid));
  CHECK(kill(pid, 0) != 0);  // killed and reaped, not left behind
}

TEST_CASE("sbatch --submit: the script reaches sbatch on stdin and the job id is printed") {
  TempDir dir;
  fs::create_directory(dir.file("bin"));
  write_text(dir.file("bin/sbatch"), "#!/bin/sh\ncat > " + dir.file("got") +
                                         "\necho 'sbatch: warning: a note' >&2\necho '4242;c1'\n");
  fs::permissions(dir.file("bin/sbatch"), fs::perms::owner_all);
  const ProcessResult r =
      run(hvdrun({"sbatch", "--profile", "hvdtest", "-t", "10", "--submit", "--", "/bin/true"}),
          {{"PATH", dir.file("bin") + ":/usr/bin:/bin"}});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "4242\n");
  std::ifstream got(dir.file("got"));
  const std::string script((std::istreambuf_iterator<char>(got)), {});
  CHECK(script.rfind("#!", 0) == 0);
  CHECK(script.find("/bin/true") != std::string::npos);
}
