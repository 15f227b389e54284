// SPDX-License-Identifier: Apache-2.0
#include "cli/check_build_cmd.h"

#include <iostream>

#include "check/build_report.h"
#include "check/horovod_layout.h"

namespace hvd::launcher::cli {

int run_check_build(bool json, bool horovod_layout, const EnvMap& env) {
  const check::BuildReport report = check::gather_build_report(env);
  if (json) {
    std::cout << check::to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  } else if (horovod_layout) {
    std::cout << check::format_horovod_text(report) << std::flush;
  } else {
    std::cout << check::format_text(report) << std::flush;
  }
  return 0;
}

}  // namespace hvd::launcher::cli
