// SPDX-License-Identifier: Apache-2.0
// Writes the binary part of the seed corpora with the real encoders, so that the fuzzers start
// from well-formed frames and files: fuzz_make_seeds <corpus dir>.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "control/message.h"
#include "store/kv_protocol.h"
#include "timeline/timeline.h"
#include <zlib.h>

#include "checkpoint.h"

namespace {

std::string g_root;

void put(const std::string& target, const std::string& name, const std::string& bytes) {
  std::ofstream(g_root + "/" + target + "/" + name, std::ios::binary) << bytes;
}

void store_seeds() {
  namespace store = hvd::store;
  const auto body = [](const std::string& frame) { return frame.substr(store::kHeaderBytes); };
  put("store_frames_fuzz", "set", body(store::encode_request({store::Op::kSet, {"rank/0"}, "10.0.0.1:4000", 0})));
  put("store_frames_fuzz", "wait", body(store::encode_request({store::Op::kWait, {"a", "b"}, "", 5000})));
  put("store_frames_fuzz", "add", body(store::encode_request({store::Op::kAdd, {"barrier"}, "1", 0})));
  put("store_frames_fuzz", "ping", body(store::encode_request({store::Op::kPing, {}, "", 0})));
  put("store_frames_fuzz", "reply_ok", body(store::encode_reply({store::ReplyStatus::kOk, "value"})));
  put("store_frames_fuzz", "reply_error", body(store::encode_reply({store::ReplyStatus::kError, "no"})));
  put("store_frames_fuzz", "frame_header", store::encode_request({store::Op::kGet, {"k"}, "", 0}));
}

void control_seeds() {
  namespace control = hvd::control;
  control::Request a;
  a.name = "grad.w1";
  a.shape = {128, 64};
  control::Request g = a;
  g.name = "gather";
  g.type = control::OpType::kAllgather;
  g.dtype = hvd::DataType::kInt32;
  g.shape = {3, 2};
  control::Request b = a;
  b.name = "bcast";
  b.type = control::OpType::kBroadcast;
  b.root = 1;
  std::vector<control::Request> four_ranks;
  for (int r = 0; r < 4; ++r) {
    control::Request x = g;
    x.rank = r;
    x.shape[0] = r + 1;
    four_ranks.push_back(x);
  }
  put("control_messages_fuzz", "requests_one", control::encode_requests({a}));
  put("control_messages_fuzz", "requests_mixed", control::encode_requests({a, g, b}));
  put("control_messages_fuzz", "requests_allgather_4_ranks", control::encode_requests(four_ranks));
  control::Response run;
  run.names = {"grad.w1", "grad.b1"};
  run.counts = {8192, 64};
  control::Response gathered;
  gathered.type = control::OpType::kAllgather;
  gathered.names = {"gather"};
  gathered.first_dims = {1, 2, 3, 4};
  control::Response error;
  error.kind = control::Response::Kind::kError;
  error.names = {"y"};
  error.error = "mismatched shapes for tensor 'y'";
  put("control_messages_fuzz", "responses", control::encode_responses({run, gathered, error}));
  put("control_messages_fuzz", "empty", control::encode_requests({}));
}

void trainer_seeds() {
  hvd::train::Checkpoint c;
  c.widths = {4, 3, 2};
  c.step = 77;
  for (int i = 0; i < 23; ++i) {
    c.params.push_back(0.5f * static_cast<float>(i));
    c.momentum.push_back(0.01f * static_cast<float>(i));
  }
  hvd::train::write_checkpoint(g_root + "/checkpoint_fuzz/mlp_4_3_2", c);
  c.widths = {2, 1};
  c.params.assign(3, 1.0f);
  c.momentum.assign(3, 0.0f);
  hvd::train::write_checkpoint(g_root + "/checkpoint_fuzz/mlp_2_1", c);

  // An IDX file of unsigned bytes: 00 00 08 <ndims>, big-endian dims, the data.
  std::string idx{'\0', '\0', '\x08', '\x03', 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 2};
  for (int i = 0; i < 12; ++i) idx.push_back(static_cast<char>(i * 20));
  put("idx_fuzz", "images_plain", idx);
  put("idx_fuzz", "labels_plain", std::string{'\0', '\0', '\x08', '\x01', 0, 0, 0, 4, 1, 9, 0, 3});
  const std::string gz = g_root + "/idx_fuzz/images_gz";
  gzFile f = gzopen(gz.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("gzopen " + gz);
  gzwrite(f, idx.data(), static_cast<unsigned>(idx.size()));
  gzclose(f);
}

}  // namespace

// A rank's timeline file as TimelineWriter writes it (tensor names, a meta event, a cycle's
// group begun with each tensor's args, a fused group and its phases, marks), and the same file
// torn in its last record.
void timeline_seeds() {
  namespace core = hvd::core;
  const std::string dir = g_root + "/timeline_records_fuzz";
  core::TimelineOptions o;
  o.filename = dir + "/rank";
  o.rank = 1;
  o.mark_cycles = true;
  std::string path;
  {
    core::TimelineWriter tl(o);
    const std::vector<std::string> names = {"grad.w1", "grad.b1", "grad.w2"};
    tl.begin("grad.w0", core::timeline_phase::kNegotiate,
             core::TimelineTensorMeta::of_shape(hvd::DataType::kFloat16, {4, 256}));
    tl.end("grad.w0", core::timeline_phase::kNegotiate);
    tl.mark_cycle_start();
    core::TimelineGroupBuilder negotiating(tl);
    for (const std::string& n : names) negotiating.add(n, hvd::DataType::kFloat16, {4, 256});
    const core::TimelineGroup g = negotiating.finish();
    tl.begin_with_args(g, core::timeline_phase::kNegotiate);
    tl.end(g, core::timeline_phase::kNegotiate);
    tl.begin(g, "RING/SHM_ALLREDUCE");
    tl.end(g, "RING/SHM_ALLREDUCE");
    tl.mark(core::kFatalMark);
    tl.close();
    path = tl.path();
  }
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  put("timeline_records_fuzz", "complete", bytes);
  put("timeline_records_fuzz", "torn", bytes.substr(0, bytes.size() - 5));
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_seeds <corpus dir>\n");
    return 2;
  }
  g_root = argv[1];
  store_seeds();
  control_seeds();
  trainer_seeds();
  timeline_seeds();
  return 0;
}
