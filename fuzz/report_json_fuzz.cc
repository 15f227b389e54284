// SPDX-License-Identifier: Apache-2.0
// `hvdrun report`'s inputs: hvd-bench and hvd-train JSON, loaded and turned into gnuplot tables.
#include "fuzz_harness.h"
#include "report/report_data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace report = hvd::launcher::report;
  return hvd::fuzz::expect_only_hvd_errors([&] {
    const report::Input input = report::load_input(hvd::fuzz::as_file(data, size));
    if (input.tool == "hvd-bench") {
      for (const report::BenchTable& t : report::bench_tables(input)) report::to_gnuplot_data(t);
    } else {
      report::to_gnuplot_data(report::train_table({input}));
    }
  });
}
