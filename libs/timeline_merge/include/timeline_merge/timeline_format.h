// SPDX-License-Identifier: Apache-2.0
#pragma once
// The per-rank timeline file: raw binary records, written by TimelineWriter (timeline.h) and
// read back only by the merge (timeline_decode.h), which turns them into Chrome-trace JSON.
// Recording then costs a clock read and a copy of a few words; all formatting happens once,
// after the run, in hvdrun or in stop_timeline().
//
// Layout, little-endian, every record a whole number of 8-byte words:
//   file header (16 bytes): kFileMagic (8 bytes), rank (u32), kFormatVersion (u32)
//   record header (8 bytes): kind (u8), kRecordMarker (u8), words (u16: the whole record,
//                            header included), aux (u32: an id, meaning set by the kind)
//   then the record's body (below), zero-padded to the record's length.
// Names (of tensors, and of phases and marks) are interned: each is written once, as its own
// record, and events carry ids. A fused response writes its tensor list once as a group, and
// each of its phases is then one event on the group; the merge expands it onto every tensor's
// track, as if each had been recorded alone. A tensor's dtype and shape (the args of its
// NEGOTIATE begin) are written as a kTensorMeta record only when they change, tagged with the
// recording thread: a group event whose args_from names that thread gives each tensor the
// last kTensorMeta that thread wrote for it, so that a step of unchanged tensors records
// nothing per tensor.
//
// The file only grows, by appends, so a rank killed mid-write leaves a prefix of the records:
// the merge keeps every complete record and drops a torn last one (timeline_decode.h).

#include <cstddef>
#include <cstdint>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the timeline file format is little-endian; this host is not"
#endif

namespace hvd::core::timeline_format {

inline constexpr char kFileMagic[8] = {'H', 'V', 'D', 'T', 'L', 'B', 'I', 'N'};
inline constexpr uint32_t kFormatVersion = 2;
/// Version 1 lacks kTensorMeta and args_from (0 there); its files read as they are.
inline constexpr uint32_t kOldestReadableVersion = 1;
inline constexpr size_t kFileHeaderBytes = 16;
inline constexpr size_t kWordBytes = 8;
/// Every record header carries it: a cheap check that the reader is still in step.
inline constexpr uint8_t kRecordMarker = 0xA5;
/// Names longer than this are cut (with "..." added by the merge), which bounds a record.
inline constexpr size_t kMaxNameBytes = 256;
/// A group record holds at most this many tensor ids; a larger group takes several records
/// with the same id, read back in order.
inline constexpr size_t kMaxGroupChunk = 256;
inline constexpr size_t kMaxDims = 8;

enum class RecordKind : uint8_t {
  kTensorName = 1,  // aux: tensor id. Body: NameBody, then the bytes.
  kPhaseName = 2,   // aux: name id (phases and marks). Body: NameBody, then the bytes.
  kEvent = 3,       // aux: name id. Body: EventBody.
  kEventMeta = 4,   // aux: name id. Body: EventBody, MetaBody, then ndims i64 dims.
  kGroup = 5,       // aux: group id. Body: GroupBody, then count u32 tensor ids.
  kDropped = 6,     // aux: 0. Body: DroppedBody.
  kTensorMeta = 7,  // aux: tensor id. Body: TensorMetaBody, MetaBody, then ndims i64 dims.
};

/// What an event is on: the marks track, one tensor's track, or every track of a group.
enum class Subject : uint8_t { kMarks = 0, kTensor = 1, kGroup = 2 };

struct RecordHeader {
  RecordKind kind;
  uint8_t marker;
  uint16_t words;
  uint32_t aux;
};

struct NameBody {
  uint32_t bytes;  // the name's length; the bytes follow
  uint32_t cut;    // 1: the writer cut a longer name to kMaxNameBytes
};

struct EventBody {
  int64_t ts_ns;  // since the epoch the ranks agreed on
  char ph;        // 'B', 'E' or 'i'
  Subject subject;
  // 0: no args. Else a 'B' event whose args are, for each of its tensors, the last
  // kTensorMeta record of recording thread args_from (TensorMetaBody::thread).
  uint16_t args_from;
  uint32_t subject_id;  // tensor id or group id; 0 for the marks track
};

struct MetaBody {
  uint8_t dtype;  // hvd::DataType
  uint8_t has_shape;
  uint8_t ndims;  // at most kMaxDims; the dims follow
  uint8_t reserved[5];
  uint64_t num_elements;
};

struct TensorMetaBody {
  uint32_t thread;  // the recording thread's number, from 1, as args_from names it
  uint32_t reserved;
};

struct GroupBody {
  uint32_t count;  // tensor ids that follow in this record
  uint32_t reserved;
};

struct DroppedBody {
  int64_t ts_ns;
  uint64_t total;  // events dropped so far (full buffers): the last record says it all
};

static_assert(sizeof(RecordHeader) == 8 && sizeof(NameBody) == 8 && sizeof(EventBody) == 16 &&
                  sizeof(MetaBody) == 16 && sizeof(GroupBody) == 8 && sizeof(DroppedBody) == 16 &&
                  sizeof(TensorMetaBody) == 8,
              "the file format fixes these sizes");

/// Words needed for a record of `body_bytes` after its header.
constexpr size_t record_words(size_t body_bytes) {
  return 1 + (body_bytes + kWordBytes - 1) / kWordBytes;
}

/// Words of a plain event record: the fixed size almost every record has.
inline constexpr size_t kEventWords = record_words(sizeof(EventBody));
/// The largest record the writer makes (a full group chunk).
inline constexpr size_t kMaxRecordWords =
    record_words(sizeof(GroupBody) + kMaxGroupChunk * sizeof(uint32_t));

}  // namespace hvd::core::timeline_format
