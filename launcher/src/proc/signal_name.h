// SPDX-License-Identifier: Apache-2.0
#pragma once
// A signal as hvdrun's messages name it: "SIGTERM", or "signal 40" for one without a name.

#include <string.h>  // sigabbrev_np

#include <string>

namespace hvd::launcher::proc {

inline std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace hvd::launcher::proc
