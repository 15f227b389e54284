// SPDX-License-Identifier: Apache-2.0
// The control channel's Request and Response lists, as a peer may send them. Requests that
// decode go on to the coordinator's MessageTable (4 ranks), which must refuse bad shapes, roots
// and ranks with an error response, not size anything from them; joins go to the table too. A
// list that decodes must encode back to the very same bytes (the codec is fixed-width).
#include "control/message.h"
#include "control/message_table.h"
#include "fuzz_harness.h"

namespace {
constexpr int kRanks = 4;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace control = hvd::control;
  const std::string_view in = hvd::fuzz::as_text(data, size);
  hvd::fuzz::expect_only_hvd_errors([&] {
    const std::vector<control::Request> requests = control::decode_requests(in);
    if (control::encode_requests(requests) != in) {
      hvd::fuzz::finding("requests", "decode/encode changed the bytes");
    }
    // Each request as if its rank (mod 4) had sent it: disagreements, duplicates and bad
    // values all reach take_response().
    control::MessageTable table(kRanks);
    for (control::Request r : requests) {
      r.rank = ((r.rank % kRanks) + kRanks) % kRanks;
      if (r.type == control::OpType::kJoin) {  // as the coordinator does (controller.cc)
        table.join(r.rank);
        for (const std::string& name : table.completed_by_joins()) table.take_response(name);
        if (table.all_joined()) table.reset_joins();
        continue;
      }
      if (table.add(r)) table.take_response(r.name);
    }
    table.pending();
  });
  hvd::fuzz::expect_only_hvd_errors([&] {
    const std::vector<control::Response> responses = control::decode_responses(in);
    if (control::encode_responses(responses) != in) {
      hvd::fuzz::finding("responses", "decode/encode changed the bytes");
    }
  });
  return 0;
}
