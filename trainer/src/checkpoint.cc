// SPDX-License-Identifier: Apache-2.0
#include "checkpoint.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "codec/bytes.h"
#include "files/atomic_file.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::train {
namespace {

constexpr char kMagic[8] = {'H', 'V', 'D', 'T', 'R', 'N', '0', '1'};

// Fields in host order (codec/bytes.h): a checkpoint is read back by the same build.
using Writer = codec::ByteWriter<std::vector<char>>;

uint64_t checksum(const char* p, size_t n) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001B3ull;
  return h;
}

std::vector<char> encode(const Checkpoint& c) {
  Writer w;
  w.put_bytes(kMagic, sizeof(kMagic));
  w.put(static_cast<uint32_t>(c.widths.size()));
  for (int width : c.widths) w.put(static_cast<int32_t>(width));
  w.put(c.step);
  w.put(static_cast<uint64_t>(c.params.size()));
  w.put_bytes(c.params.data(), c.params.size() * sizeof(float));
  w.put_bytes(c.momentum.data(), c.momentum.size() * sizeof(float));
  w.put(checksum(w.bytes().data(), w.bytes().size()));
  return std::move(w.bytes());
}

}  // namespace

int64_t mlp_parameter_count(const std::vector<int>& widths) {
  int64_t total = 0;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    int64_t weights = 0, layer = 0;
    if (__builtin_mul_overflow(int64_t{widths[l]}, int64_t{widths[l + 1]}, &weights) ||
        __builtin_add_overflow(weights, int64_t{widths[l + 1]}, &layer) ||
        __builtin_add_overflow(total, layer, &total)) {
      return -1;
    }
  }
  return total;
}

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  const std::vector<char> bytes = encode(c);
  files::AtomicFile file(path);
  file.write(std::string_view(bytes.data(), bytes.size()));
  file.commit();
}

Checkpoint read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(str_cat("hvd-train: cannot open checkpoint ", path));
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw ConfigError(str_cat("hvd-train: cannot read checkpoint ", path));
  return parse_checkpoint(bytes, path);
}

Checkpoint parse_checkpoint(std::string_view bytes, const std::string& path) {
  const auto corrupt = [&path](const std::string& why) {
    return ConfigError(str_cat("hvd-train: checkpoint ", path, ": ", why,
                               "; remove it to start afresh, or point --checkpoint elsewhere"));
  };
  if (bytes.size() < sizeof(kMagic) + sizeof(uint64_t) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    throw corrupt("not an hvd-train checkpoint");
  }
  const size_t body = bytes.size() - sizeof(uint64_t);
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, sizeof(stored));
  if (stored != checksum(bytes.data(), body)) throw corrupt("checksum mismatch (corrupt file)");
  codec::ByteReader r(bytes.substr(0, body), [&path](const char*, size_t, size_t) {
    throw ConfigError(str_cat("hvd-train: ", path, ": truncated checkpoint"));
  });
  r.skip(sizeof(kMagic));
  Checkpoint c;
  // Every count is checked against the bytes left before anything is sized from it.
  const uint32_t layers = r.get<uint32_t>();
  if (layers < 2 || layers > r.left() / sizeof(int32_t)) {
    throw corrupt(str_cat("it claims ", layers, " layer widths, which ", r.left(),
                          " bytes cannot hold (or fewer than 2)"));
  }
  c.widths.resize(layers);
  for (int& width : c.widths) {
    width = r.get<int32_t>();
    if (width <= 0) throw corrupt(str_cat("a layer width of ", width));
  }
  c.step = r.get<int64_t>();
  if (c.step < 0) throw corrupt(str_cat("a negative step count (", c.step, ")"));
  const uint64_t count = r.get<uint64_t>();
  const int64_t expected = mlp_parameter_count(c.widths);
  if (expected < 0 || count != static_cast<uint64_t>(expected)) {
    throw corrupt(str_cat("it holds ", count, " parameters, but its widths imply ", expected));
  }
  if (count > r.left() / (2 * sizeof(float)) || r.left() != count * 2 * sizeof(float)) {
    throw corrupt(str_cat(count, " parameters and their momenta do not fill the ", r.left(),
                          " bytes left (truncated or padded file)"));
  }
  c.params.resize(count);
  c.momentum.resize(count);
  r.get_bytes(c.params.data(), count * sizeof(float));
  r.get_bytes(c.momentum.data(), count * sizeof(float));
  return c;
}

}  // namespace hvd::train
