// SPDX-License-Identifier: Apache-2.0
#include "report/gnuplot_runner.h"

#include <algorithm>
#include <filesystem>

#include "files/atomic_file.h"
#include "files/owned_dir.h"
#include "files/owned_file.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "proc/command_output.h"
#include "proc/program_lookup.h"
#include "report/scratch_dir.h"

namespace hvd::launcher::report {
namespace {

namespace fs = std::filesystem;

// A picture larger than this is not a plot hvdrun drew.
constexpr size_t kMaxPictureBytes = size_t{64} << 20;

// The output folder, as hvd::files checks it; a refusal is about hvdrun's output, so it is
// exit 5 like every output that cannot be written (cli/exit_codes.h).
net::Fd open_output_dir(const std::string& path) {
  try {
    return files::open_owned_dir(path);
  } catch (const ConfigError& e) {
    throw LaunchError(str_cat("-o ", e.what()));
  }
}

std::string one_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// Runs `gnuplot report.gp` in the scratch folder; throws LaunchError when it fails.
void run_gnuplot(const RenderJob& job, const ScratchDir& scratch, const EnvMap& env) {
  proc::OutputLimits limits;
  limits.timeout = job.limit;
  limits.max_bytes = size_t{64} << 10;  // gnuplot draws into files; stdout is only chatter
  proc::CommandInput input;
  input.capture_stderr = true;
  input.cwd_fd = scratch.fd();
  const proc::CommandOutput r =
      proc::run_for_output({job.gnuplot, "report.gp"}, env, limits, input);
  if (r.timed_out) {
    throw LaunchError(
        str_cat("gnuplot did not finish within ", job.limit.count(), " s; nothing was written"));
  }
  if (r.exit_code != 0) {
    throw LaunchError(str_cat("gnuplot failed (exit ", r.exit_code,
                              "): ", r.err.empty() ? "no message" : one_line(r.err),
                              "; nothing was written"));
  }
}

}  // namespace

std::string find_gnuplot(const EnvMap& env) {
  if (std::optional<std::string> path = proc::find_in_path("gnuplot", env)) return *path;
  throw LaunchError(
      "gnuplot was not found in PATH; hvdrun report draws with it: install it "
      "(Debian: apt-get install gnuplot-nox)");
}

std::vector<std::string> render(const RenderJob& job, const EnvMap& env) {
  const net::Fd out_dir = open_output_dir(job.output_dir);  // refused before any work
  const ScratchDir scratch(job.scratch_parent);
  for (const auto& [name, content] : job.files) scratch.write(name, content);
  scratch.write("report.gp", job.script);
  run_gnuplot(job, scratch, env);
  std::vector<std::string> drawn;  // all read back before any is moved into place
  for (const std::string& name : job.outputs) {
    try {
      drawn.push_back(files::read_owned_file_at(scratch.fd(), name, kMaxPictureBytes));
    } catch (const ConfigError& e) {
      throw LaunchError(
          str_cat("gnuplot drew no usable ", name, " (", e.what(), "); nothing was written"));
    }
    if (drawn.back().empty()) {
      throw LaunchError(str_cat("gnuplot drew an empty ", name, "; nothing was written"));
    }
  }
  if (!files::still_names(out_dir.get(), job.output_dir)) {
    throw LaunchError(str_cat("-o ", job.output_dir,
                              ": the folder was renamed or replaced while "
                              "gnuplot ran; nothing was written"));
  }
  // Through hvd::files: each picture goes to a mkstemp name beside its target, is fsynced and
  // renamed over it, so a crash leaves the old picture or the new one, and a symlink planted
  // at the target is replaced, never written through.
  std::vector<std::string> written;
  for (size_t i = 0; i < job.outputs.size(); ++i) {
    const std::string target = (fs::path(job.output_dir) / job.outputs[i]).string();
    files::write_file_atomically(target, drawn[i]);
    written.push_back(target);
  }
  return written;
}

}  // namespace hvd::launcher::report
