// SPDX-License-Identifier: Apache-2.0
// The rendezvous store's wire format: a frame's length header, then a request or reply body.
// What decodes must encode back to the same bytes.
#include "fuzz_harness.h"
#include "store/kv_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace store = hvd::store;
  const std::string_view in = hvd::fuzz::as_text(data, size);
  if (in.size() >= store::kHeaderBytes) {  // its precondition
    hvd::fuzz::expect_only_hvd_errors([&] { store::decode_frame_length(in); });
  }
  hvd::fuzz::expect_only_hvd_errors([&] {
    const store::Request request = store::decode_request(in);
    const std::string again = store::encode_request(request);
    store::decode_request(std::string_view(again).substr(store::kHeaderBytes));
  });
  hvd::fuzz::expect_only_hvd_errors([&] {
    const store::Reply reply = store::decode_reply(in);
    const std::string again = store::encode_reply(reply);
    store::decode_reply(std::string_view(again).substr(store::kHeaderBytes));
  });
  return 0;
}
