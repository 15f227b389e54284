// SPDX-License-Identifier: Apache-2.0
// `hvdrun report`'s inputs: hvd-bench, hvd-train and hvdrun preflight JSON, loaded and turned
// into gnuplot tables; a preflight verdict also into its gnuplot commands, where a host name that
// got past the checks with a control character would be an InternalError (gnuplot_quote).
#include "fuzz_harness.h"
#include "report/report_data.h"
#include "report/report_plot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace report = hvd::launcher::report;
  return hvd::fuzz::expect_only_hvd_errors([&] {
    const report::Input input = report::load_input(hvd::fuzz::as_file(data, size));
    if (input.tool == "hvd-bench") {
      for (const report::BenchTable& t : report::bench_tables(input)) report::to_gnuplot_data(t);
    } else if (input.tool == "hvdrun preflight") {
      report::preflight_plot(report::preflight_table(input), "pf");
    } else {
      report::to_gnuplot_data(report::train_table({input}));
    }
  });
}
