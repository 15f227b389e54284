// SPDX-License-Identifier: Apache-2.0
#include "timeline_decode.h"

#include <cstring>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::core {
namespace {

namespace fmt = timeline_format;

template <typename T>
T read_at(std::string_view bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

// One record's bytes, header included; `body_bytes` is how much of it follows the header.
struct Record {
  fmt::RecordHeader header;
  std::string_view body;
};

class Decoder {
 public:
  explicit Decoder(DecodedTimeline& out) : out_(out) {}

  // False (and out_.problem set) when the record is invalid.
  bool take(const Record& r) {
    switch (r.header.kind) {
      case fmt::RecordKind::kTensorName:
        return take_name(r, out_.tensors);
      case fmt::RecordKind::kPhaseName:
        return take_name(r, out_.names);
      case fmt::RecordKind::kEvent:
      case fmt::RecordKind::kEventMeta:
        return take_event(r);
      case fmt::RecordKind::kGroup:
        return take_group(r);
      case fmt::RecordKind::kTensorMeta:
        return take_tensor_meta(r);
      case fmt::RecordKind::kDropped:
        if (r.body.size() < sizeof(fmt::DroppedBody)) return invalid("short drop record");
        out_.drops.push_back({read_at<int64_t>(r.body, 0), read_at<uint64_t>(r.body, 8)});
        return true;
    }
    return invalid(str_cat("unknown record kind ", static_cast<int>(r.header.kind)));
  }

  const std::string& why() const { return why_; }

 private:
  bool invalid(std::string why) {
    why_ = std::move(why);
    return false;
  }

  bool take_name(const Record& r, std::unordered_map<uint32_t, std::string>& table) {
    if (r.body.size() < sizeof(fmt::NameBody)) return invalid("short name record");
    const auto body = read_at<fmt::NameBody>(r.body, 0);
    if (body.bytes > fmt::kMaxNameBytes || body.bytes > r.body.size() - sizeof(fmt::NameBody)) {
      return invalid(str_cat("a name of ", body.bytes, " bytes"));
    }
    std::string name(r.body.substr(sizeof(fmt::NameBody), body.bytes));
    if (body.cut != 0) name += "...";
    table[r.header.aux] = std::move(name);
    return true;
  }

  bool take_event(const Record& r) {
    if (r.body.size() < sizeof(fmt::EventBody)) return invalid("short event record");
    const auto body = read_at<fmt::EventBody>(r.body, 0);
    if (body.ph != 'B' && body.ph != 'E' && body.ph != 'i') {
      return invalid(str_cat("an event of phase type ", static_cast<int>(body.ph)));
    }
    if (body.subject != fmt::Subject::kMarks && body.subject != fmt::Subject::kTensor &&
        body.subject != fmt::Subject::kGroup) {
      return invalid(str_cat("an event on subject kind ", static_cast<int>(body.subject)));
    }
    DecodedEvent ev{body.ts_ns, body.ph, body.subject, body.subject_id, r.header.aux, -1};
    if (r.header.kind == fmt::RecordKind::kEventMeta) {
      if (!take_meta(r.body, sizeof(fmt::EventBody), &ev.meta)) return false;
    }
    if (body.args_from != 0 && body.ph == 'B') return take_event_with_args(ev, body.args_from);
    out_.events.push_back(ev);
    return true;
  }

  // An event whose args are its tensors' last metas from thread `thread`: one event per
  // tensor, each with its own args (a group not seen yet stays one event, without args).
  bool take_event_with_args(DecodedEvent ev, uint16_t thread) {
    if (ev.subject == fmt::Subject::kTensor) {
      ev.meta = meta_of(thread, ev.subject_id);
      out_.events.push_back(ev);
      return true;
    }
    const auto group = ev.subject == fmt::Subject::kGroup ? out_.groups.find(ev.subject_id)
                                                          : out_.groups.end();
    if (group == out_.groups.end()) {
      out_.events.push_back(ev);
      return true;
    }
    ev.subject = fmt::Subject::kTensor;
    for (uint32_t tensor : group->second) {
      ev.subject_id = tensor;
      ev.meta = meta_of(thread, tensor);
      out_.events.push_back(ev);
    }
    return true;
  }

  int32_t meta_of(uint16_t thread, uint32_t tensor) const {
    const auto it = last_meta_.find(meta_key(thread, tensor));
    return it == last_meta_.end() ? -1 : it->second;
  }

  static uint64_t meta_key(uint32_t thread, uint32_t tensor) {
    return (uint64_t{thread} << 32) | tensor;
  }

  bool take_tensor_meta(const Record& r) {
    if (r.body.size() < sizeof(fmt::TensorMetaBody)) return invalid("short tensor metadata");
    const auto body = read_at<fmt::TensorMetaBody>(r.body, 0);
    int32_t index = -1;
    if (!take_meta(r.body, sizeof(fmt::TensorMetaBody), &index)) return false;
    last_meta_[meta_key(body.thread, r.header.aux)] = index;
    return true;
  }

  // A MetaBody and its dims at `at` of `body`, appended to out_.metas; its index in *index.
  bool take_meta(std::string_view body, size_t at, int32_t* index) {
    if (body.size() < at + sizeof(fmt::MetaBody)) return invalid("short event metadata");
    const auto meta = read_at<fmt::MetaBody>(body, at);
    if (meta.ndims > fmt::kMaxDims ||
        body.size() < at + sizeof(fmt::MetaBody) + meta.ndims * sizeof(int64_t)) {
      return invalid(str_cat("event metadata with ", static_cast<int>(meta.ndims), " dims"));
    }
    DecodedMeta m{meta.dtype, meta.has_shape != 0, meta.num_elements, {}};
    for (size_t d = 0; d < meta.ndims; ++d) {
      m.dims.push_back(read_at<int64_t>(body, at + sizeof(fmt::MetaBody) + d * 8));
    }
    *index = static_cast<int32_t>(out_.metas.size());
    out_.metas.push_back(std::move(m));
    return true;
  }

  bool take_group(const Record& r) {
    if (r.body.size() < sizeof(fmt::GroupBody)) return invalid("short group record");
    const auto body = read_at<fmt::GroupBody>(r.body, 0);
    if (body.count > (r.body.size() - sizeof(fmt::GroupBody)) / sizeof(uint32_t)) {
      return invalid(str_cat("a group chunk of ", body.count, " tensors"));
    }
    std::vector<uint32_t>& ids = out_.groups[r.header.aux];
    for (size_t i = 0; i < body.count; ++i) {
      ids.push_back(read_at<uint32_t>(r.body, sizeof(fmt::GroupBody) + i * sizeof(uint32_t)));
    }
    return true;
  }

  DecodedTimeline& out_;
  std::string why_;
  // The last kTensorMeta of each (thread, tensor): index into out_.metas.
  std::unordered_map<uint64_t, int32_t> last_meta_;
};

}  // namespace

DecodedTimeline decode_timeline(std::string_view bytes) {
  if (bytes.size() < fmt::kFileHeaderBytes ||
      std::memcmp(bytes.data(), fmt::kFileMagic, sizeof(fmt::kFileMagic)) != 0) {
    throw ConfigError("not an hvd timeline file (no HVDTLBIN header)");
  }
  const auto version = read_at<uint32_t>(bytes, 12);
  if (version < fmt::kOldestReadableVersion || version > fmt::kFormatVersion) {
    throw ConfigError(str_cat("timeline file format version ", version, "; this build reads ",
                              fmt::kOldestReadableVersion, " to ", fmt::kFormatVersion));
  }
  DecodedTimeline out;
  out.rank = read_at<uint32_t>(bytes, 8);
  Decoder decoder(out);
  size_t offset = fmt::kFileHeaderBytes;
  while (offset < bytes.size()) {
    const size_t left = bytes.size() - offset;
    if (left < sizeof(fmt::RecordHeader)) {
      out.end = DecodedTimeline::End::kTorn;
      out.problem = str_cat("a torn record at byte ", offset, " (", left, " bytes) dropped");
      break;
    }
    const auto header = read_at<fmt::RecordHeader>(bytes, offset);
    if (header.marker != fmt::kRecordMarker || header.words == 0) {
      out.end = DecodedTimeline::End::kInvalid;
      out.problem = str_cat("not a record at byte ", offset, "; the rest is ignored");
      break;
    }
    const size_t record_bytes = size_t{header.words} * fmt::kWordBytes;
    if (record_bytes > left) {
      out.end = DecodedTimeline::End::kTorn;
      out.problem = str_cat("a torn record at byte ", offset, " (", left, " of ", record_bytes,
                            " bytes) dropped");
      break;
    }
    const Record record{header, bytes.substr(offset + sizeof(fmt::RecordHeader),
                                             record_bytes - sizeof(fmt::RecordHeader))};
    if (!decoder.take(record)) {
      out.end = DecodedTimeline::End::kInvalid;
      out.problem = str_cat("an invalid record at byte ", offset, " (", decoder.why(),
                            "); the rest is ignored");
      break;
    }
    offset += record_bytes;
  }
  return out;
}

}  // namespace hvd::core
