// SPDX-License-Identifier: Apache-2.0
// A rank's timeline file as hvdrun's merge reads it after the run: whatever a killed or broken
// rank left on disk. Decoding must refuse a bad header with an hvd::Error and stop at damage
// past it; the Chrome formatting that follows must skip ids that name nothing.
#include "fuzz_harness.h"
#include "timeline_chrome.h"
#include "timeline_decode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in = hvd::fuzz::as_text(data, size);
  hvd::fuzz::expect_only_hvd_errors([&] {
    const hvd::core::DecodedTimeline timeline = hvd::core::decode_timeline(in);
    size_t bytes = 0;
    hvd::core::write_chrome_events(timeline, 3, [&](std::string_view ev) { bytes += ev.size(); });
  });
  return 0;
}
