// SPDX-License-Identifier: Apache-2.0
#include "cli/horovodrun_name.h"

namespace hvd::launcher::cli {

bool started_as_horovodrun(const std::string& argv0) {
  const std::string::size_type slash = argv0.rfind('/');
  return argv0.substr(slash == std::string::npos ? 0 : slash + 1) == "horovodrun";
}

}  // namespace hvd::launcher::cli
