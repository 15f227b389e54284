// SPDX-License-Identifier: Apache-2.0
#include "cli/report_cmd.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include "hvd/error.h"
#include "report/gnuplot_runner.h"
#include "report/report_data.h"
#include "report/report_plot.h"
#include "report/scratch_dir.h"
#include "util/text.h"

namespace hvd::launcher::cli {
namespace {

std::vector<std::string> parse_formats(const std::string& text) {
  std::vector<std::string> formats;
  util::for_each_item(text, [&](std::string_view item) {
    const std::string f(util::trim(item));
    if (std::find(report::kFormats.begin(), report::kFormats.end(), f) == report::kFormats.end()) {
      throw UsageError(str_cat("--format: unknown format '", f, "'; use png, svg or png,svg"));
    }
    if (std::find(formats.begin(), formats.end(), f) == formats.end()) formats.push_back(f);
  });
  if (formats.empty()) throw UsageError("--format: give at least one of png, svg");
  return formats;
}

// The input file's stem names its pictures (STEM-OP.png); the name reaches gnuplot's `set output`
// and the output folder, so anything but letters, digits, '.', '_' and '-' becomes '_'.
std::string picture_stem(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string().substr(0, 100);
  for (char& c : stem) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return stem.empty() || stem.front() == '.' ? "bench" + stem : stem;
}

// Every plot the inputs make: one per op of each hvd-bench file (named after the file), one per
// hvdrun predict or hvdrun preflight file, and one for all hvd-train files together.
std::vector<report::Plot> plots_for(const std::vector<report::Input>& inputs) {
  std::vector<report::Plot> plots;
  std::vector<report::Input> train;
  std::set<std::string> names;
  for (const report::Input& in : inputs) {
    if (in.tool == "hvd-train") {
      train.push_back(in);
      continue;
    }
    const std::string stem = picture_stem(in.path);
    const auto claim = [&](const std::string& name) {
      if (!names.insert(name).second) {
        throw ConfigError(str_cat(in.path, ": another input already makes ", name,
                                  "; give the files different names"));
      }
      return name;
    };
    if (in.tool == "hvdrun predict") {
      plots.push_back(report::train_plot(report::predict_table(in), claim(stem + "-predicted")));
      continue;
    }
    if (in.tool == "hvdrun preflight") {
      plots.push_back(
          report::preflight_plot(report::preflight_table(in), claim(stem + "-preflight")));
      continue;
    }
    for (const report::BenchTable& t : report::bench_tables(in)) {
      plots.push_back(report::bench_plot(t, claim(stem + "-" + t.op)));
    }
  }
  if (!train.empty())
    plots.push_back(report::train_plot(report::train_table(train), "train-scaling"));
  return plots;
}

}  // namespace

CLI::App* register_report(CLI::App& app, ReportOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Draw hvd-bench, hvd-train, hvdrun predict and hvdrun preflight JSON as PNG/SVG pictures "
      "(with gnuplot); a preflight verdict becomes STEM-preflight: bars per node and link, "
      "flagged ones red, with the median and the threshold as lines");
  cmd->add_option("files", o.files,
                  "hvd-bench, hvd-train, hvdrun predict or hvdrun preflight --json files")
      ->required();
  cmd->add_option("-o,--output-dir", o.output_dir, "Folder for the pictures (.)");
  cmd->add_option("--format", o.formats, "png, svg or png,svg (png,svg)");
  cmd->add_option("--timeout", o.timeout_seconds, "Stop gnuplot after this many seconds (60)")
      ->check(CLI::PositiveNumber);
  return cmd;
}

int run_report(const ReportOptions& o, const EnvMap& env) {
  const std::vector<std::string> formats = parse_formats(o.formats);
  std::vector<report::Input> inputs;
  for (const std::string& path : o.files) inputs.push_back(report::load_input(path));
  const std::vector<report::Plot> plots = plots_for(inputs);
  if (plots.empty()) {
    throw ConfigError("nothing to draw: the hvd-bench files have no rows");
  }
  report::RenderJob job;
  job.gnuplot = report::find_gnuplot(env);
  job.output_dir = o.output_dir;
  job.scratch_parent = report::temp_parent(env);
  for (const report::Plot& p : plots) {
    job.files.emplace_back(p.data_file, p.data);
    for (const std::string& f : formats) job.outputs.push_back(p.name + "." + f);
  }
  job.script = report::gnuplot_script(plots, formats);
  job.limit = std::chrono::seconds(o.timeout_seconds);
  const std::vector<std::string> written = report::render(job, env);
  for (const std::string& path : written) std::cout << path << "\n";
  return 0;
}

}  // namespace hvd::launcher::cli
