// SPDX-License-Identifier: Apache-2.0
// `hvdrun predict`'s inputs: the file read as JSON, then taken both as hvd-train JSON (the step's
// figures) and as hvd-bench JSON (a link fitted to its allreduce times), through the same
// functions predict calls. Each must end in a ConfigError or a result, never another exception.
#include "fuzz_harness.h"
#include "predict/network_fit.h"
#include "predict/train_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace predict = hvd::launcher::predict;
  const std::string path = hvd::fuzz::as_file(data, size);
  nlohmann::json doc;
  hvd::fuzz::expect_only_hvd_errors([&] { doc = predict::read_json(path); });
  hvd::fuzz::expect_only_hvd_errors([&] { predict::workload_from_train(doc, path); });
  hvd::fuzz::expect_only_hvd_errors([&] {
    const predict::Schedule s;
    predict::fit_link(doc, path, s.small_bytes, 1e6);
    predict::fit_link(doc, path, s.small_bytes);
  });
  return 0;
}
