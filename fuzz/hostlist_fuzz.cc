// SPDX-License-Identifier: Apache-2.0
// Slurm hostlists ("gpu[01-04,07]"): expansion, and compression of what expanded.
#include "fuzz_harness.h"
#include "slurm/hostlist.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace slurm = hvd::launcher::slurm;
  return hvd::fuzz::expect_only_hvd_errors([&] {
    const std::vector<std::string> hosts = slurm::expand_hostlist(hvd::fuzz::as_text(data, size));
    if (!hosts.empty()) slurm::compress_hostlist(hosts);
  });
}
