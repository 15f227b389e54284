// SPDX-License-Identifier: Apache-2.0
// Bad input: one line on stderr naming what is wrong, a distinct exit code, nothing started.

#include <sys/stat.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
namespace fs = std::filesystem;

namespace {

void expect_error(const std::vector<std::string>& args, int code, const std::string& mentions) {
  CAPTURE(mentions);
  const ProcessResult r = run(hvdrun(args));
  CHECK(r.exit_code == code);
  const std::string line = only_line(r.err);
  CHECK_MESSAGE(line.rfind("hvdrun: error: ", 0) == 0, line);
  CHECK_MESSAGE(line.find(mentions) != std::string::npos, line);
  CHECK(r.out.empty());
}

std::string file_with(const TempDir& dir, const std::string& text) {
  const std::string path = dir.file("config.yaml");
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("usage errors exit 2") {
  expect_error({"--bogus", "-np", "2", "--", "/bin/true"}, 2, "--bogus");
  expect_error({"-np", "0", "--", "/bin/true"}, 2, "-np");
  expect_error({"-np", "two", "--", "/bin/true"}, 2, "num-proc");
  expect_error({"-np", "2"}, 2, "no program given");
  expect_error({"-np", "2", "--"}, 2, "no program given");
  expect_error({"--", "/bin/true"}, 2, "-np is required");
  expect_error({"-H", "localhost:x", "--", "/bin/true"}, 2, "localhost:x");
  expect_error({"-H", "localhost:2,", "--", "/bin/true"}, 2, "-H");
  expect_error({"-H", "gpu-node-17:4", "--", "/bin/true"}, 2, "gpu-node-17");
  expect_error({"-np", "8", "-H", "localhost:4", "--", "/bin/true"}, 2, "4 slots");
  expect_error({"-np", "2", "--bind-to", "socket", "--", "/bin/true"}, 2, "socket");
}

TEST_CASE("a run option before a command's name is refused, not quietly dropped") {
  // The command has the option: say where it goes.
  expect_error({"--profile", "local", "preflight"}, 2,
               "--profile before 'preflight' is an option of a run, which hvdrun preflight would "
               "not see: put it after the command (hvdrun preflight --profile ...)");
  // It has not: say so.
  expect_error({"-np", "2", "sbatch", "-t", "10", "--", "/bin/true"}, 2,
               "hvdrun sbatch has no --num-proc; see hvdrun sbatch --help");
  expect_error({"--verbose", "report", "x.json"}, 2, "--verbose before 'report'");
}

TEST_CASE("configuration errors exit 3 and point at the file") {
  TempDir dir;
  expect_error({"-np", "2", "--config-file", dir.file("missing.yaml"), "--", "/bin/true"}, 3,
               "missing.yaml: cannot read");
  expect_error({"-np", "2", "--config-file", dir.path(), "--", "/bin/true"}, 3,
               "it is a directory");
  expect_error({"-np", "2", "--config-file", file_with(dir, "params:\n  cycle_time_ms: [1\n"),
                "--", "/bin/true"},
               3, "config.yaml:3:1: malformed YAML");
  expect_error({"-np", "2", "--config-file",
                file_with(dir, "params:\n  fusion_treshold_mb: 64\n"), "--", "/bin/true"},
               3, "config.yaml:2:3: unknown key 'params.fusion_treshold_mb'");
  expect_error({"-np", "2", "--config-file", file_with(dir, "controler: gloo\n"), "--",
                "/bin/true"},
               3, "unknown key 'controler'");
  expect_error({"-np", "2", "--config-file", file_with(dir, "params:\n  cache_capacity: lots\n"),
                "--", "/bin/true"},
               3, "config.yaml:2:19: params.cache_capacity: expected an integer, got 'lots'");
  const std::string hostfile = dir.file("hosts");
  std::ofstream(hostfile) << "# hosts\nlocalhost slots=four\n";
  expect_error({"--hostfile", hostfile, "--", "/bin/true"}, 3, "hosts:2:");
}

TEST_CASE("launch errors exit 5 before any rank starts") {
  TempDir dir;
  expect_error({"-np", "2", "--", "no-such-program-hvd"}, 5,
               "'no-such-program-hvd' was not found in PATH");
  const std::string script = dir.file("script.sh");
  std::ofstream(script) << "#!/bin/sh\ntouch " << dir.file("ran") << "\n";
  chmod(script.c_str(), 0644);
  expect_error({"-np", "2", "--", script}, 5, "is not executable");
  expect_error({"-np", "2", "--", dir.path()}, 5, "is a directory");
  struct stat st {};
  CHECK(stat(dir.file("ran").c_str(), &st) != 0);
}

TEST_CASE("--help lists the exit codes and horovodrun spellings work") {
  const ProcessResult help = run(hvdrun({"--help"}));
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Exit codes:") != std::string::npos);
  CHECK(help.out.find("--num-proc") != std::string::npos);
  const ProcessResult np = run(hvdrun({"-np", "2", "-hostfile", "/nonexistent", "--", "/bin/true"}));
  CHECK(np.exit_code == 3);  // -hostfile was understood: the file is what is missing
  const ProcessResult ok = run(hvdrun({"-np", "2", "/bin/echo", "--not-hvdrun-flag"}));
  CHECK(ok.exit_code == 0);  // without --, everything from the program on is the program's
  CHECK(ok.out.find("[1]<stdout>:--not-hvdrun-flag") != std::string::npos);
}

// What a new user gets wrong first, as the binary answers it: one line naming the culprit and
// what to do, a distinct code, and nothing left behind.
TEST_CASE("a typo gets the option it was meant to be") {
  expect_error({"--num-prc", "2", "--", "/bin/true"}, 2, "(did you mean --num-proc?)");
  expect_error({"sbatch", "--acount", "x", "-t", "10", "--", "/bin/true"}, 2,
               "(did you mean --account?)");
  expect_error({"profiles", "lst"}, 2, "'lst' is not a command of hvdrun profiles");
  expect_error({"sbatch", "--profile", "perlmuter", "-t", "10", "--", "/bin/true"}, 3,
               "unknown site profile 'perlmuter' (did you mean perlmutter?)");
}

TEST_CASE("commands without a program refuse an unknown option instead of dropping it") {
  TempDir dir;
  // It printed the table, exit 0, and wrote no JSON.
  expect_error({"predict", "--step-ms", "5", "--gradient-mb", "1", "--jsn", dir.file("p.json")},
               2, "unknown option '--jsn' (did you mean --json?)");
  // It drew `svg` as a file name.
  expect_error({"report", "--fromat", "svg", dir.file("bench.json")}, 2,
               "unknown option '--fromat' (did you mean --format?)");
  expect_error({"preflight", "-np", "1", "--treshold", "0.5"}, 2,
               "unknown option '--treshold' (did you mean --threshold?)");
  CHECK(fs::is_empty(dir.path()));
}

TEST_CASE("bad flag values name the flag, exit 2, and start nothing") {
  expect_error({"-np", "2", "--kill-grace-seconds", "-5", "--", "/bin/true"}, 2,
               "--kill-grace-seconds: kill grace must be >= 0 seconds");
  expect_error({"-np", "2", "--cycle-time-ms", "inf", "--", "/bin/true"}, 2, "--cycle-time-ms");
  expect_error({"-np", "2", "--log-level", "loud", "--", "/bin/true"}, 2,
               "--log-level: log level 'loud' is not one of");
  expect_error({"-np", "2", "--max-restarts", "-1", "--", "/bin/true"}, 2,
               "--max-restarts: must be at least 0, got -1");
  expect_error({"-np", "x", "--", "/bin/true"}, 2, "--num-proc: 'x' is not a whole number");
  expect_error({"sbatch", "--profile", "neuron", "-t", "10", "--ntasks-per-node", "0", "--",
                "/bin/true"},
               2, "--ntasks-per-node: must be from 1 to 100000, got 0");
  expect_error({"sbatch", "--profile", "neuron", "-t", "10", "--signal-lead", "-5", "--",
                "/bin/true"},
               2, "--signal-lead: must be from 1 to 65535, got -5");
  // It hung, listing 2147483647 nodes for the script's preview.
  expect_error({"sbatch", "--profile", "neuron", "-t", "10", "-N", "2147483647", "--",
                "/bin/true"},
               2, "lower -N or --ntasks-per-node");
  expect_error({"-np", "2", "--profile", "no-such-site", "--", "/bin/true"}, 3,
               "unknown site profile 'no-such-site'");
}

TEST_CASE("a config file's out-of-range value names its line") {
  TempDir dir;
  expect_error({"-np", "1", "--config-file", file_with(dir, "launcher:\n  max_restarts: -2\n"),
                "--", "/bin/true"},
               3, "config.yaml:2:17: launcher.max_restarts: max restarts must be >= 0, got '-2'");
}

TEST_CASE("input files that are directories or missing are config errors, not bugs") {
  TempDir dir;
  expect_error({"report", dir.path()}, 3, "is a directory");  // was exit 70
  expect_error({"report", dir.file("none.json")}, 3,
               "none.json: cannot open the file: No such file or directory");
  expect_error({"predict", "--train", dir.file("none.json")}, 3, "none.json: cannot read it");
  expect_error({"--hostfile", dir.path(), "--", "/bin/true"}, 3,
               "cannot read hostfile: it is a directory");  // was "no hosts listed"
  CHECK(fs::is_empty(dir.path()));
  TempDir other;
  std::ofstream(other.file("empty.json")).flush();
  expect_error({"report", other.file("empty.json"), "-o", other.path()}, 3,
               "empty.json: the file is empty");
}

TEST_CASE("a run that could not finish well is refused before it starts") {
  TempDir dir;
  const std::string ran = dir.file("ran");
  const std::string touch = "/usr/bin/touch";
  // The timeline was lost with a warning after the whole job had run.
  expect_error({"-np", "1", "--timeline-filename", dir.file("no-such-dir/tl.json"), "--", touch,
                ran},
               2, "its folder " + dir.file("no-such-dir") + " does not exist");
  // Ranks beyond the descriptor limit: it forked for minutes, then failed at a pipe.
  const ProcessResult r = run({"/usr/bin/prlimit", "--nofile=256:256", HVDRUN_EXE, "-np", "200",
                               "--", touch, ran});
  CHECK(r.exit_code == 5);
  CHECK_MESSAGE(only_line(r.err).find("-np 200: starting that many ranks") != std::string::npos,
                r.err);
  CHECK(!fs::exists(ran));
}

TEST_CASE("an output that cannot be written fails first, with exit 5, and leaves nothing") {
  TempDir dir;
  const std::string missing = dir.file("no-such-dir/out");
  // predict printed its whole table, then failed with exit 3.
  expect_error({"predict", "--step-ms", "5", "--gradient-mb", "1", "--nodes", "1", "--json",
                missing},
               5, "cannot create a file in the folder " + dir.file("no-such-dir"));
  expect_error({"sbatch", "--profile", "neuron", "-t", "10", "-o", dir.path(), "--", "/bin/true"},
               5, "names a directory, not a file");
  // preflight ran all its checks first.
  expect_error({"preflight", "-np", "1", "--json", missing}, 5, "no-such-dir");
  CHECK(fs::is_empty(dir.path()));
}

TEST_CASE("an empty value is refused, not read as the option left out") {
  // `--config-file "$CFG"` with CFG unset ran with the defaults, quietly.
  expect_error({"-np", "1", "--config-file", "", "--", "/bin/true"}, 2,
               "--config-file: the value is empty; give one, or leave the option out");
  expect_error({"sbatch", "--profile", "neuron", "-t", "10", "-A", "", "--", "/bin/true"}, 2,
               "--account: the value is empty");
  expect_error({"predict", "--step-ms", "5", "--json", ""}, 2, "--json: the value is empty");
  // It read "--" as the file's name: "--: cannot read".
  expect_error({"-np", "1", "--config-file", "--", "/bin/true"}, 2,
               "--config-file: its value is missing (it took the -- before the program)");
  const ProcessResult ok = run(hvdrun({"-np", "1", "--", "/bin/echo", ""}));
  CHECK(ok.exit_code == 0);  // the program's own empty arguments are its business
}
