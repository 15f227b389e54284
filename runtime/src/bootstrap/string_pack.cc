// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/string_pack.h"

#include <cstdint>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bootstrap {
namespace {

void put_u32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}

// Reads a u32 at `pos` and advances it; false when fewer than 4 bytes are left.
bool get_u32(std::string_view in, size_t& pos, uint32_t& v) {
  if (in.size() - pos < 4) return false;
  v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(in[pos + i]);
  pos += 4;
  return true;
}

}  // namespace

std::string pack_strings(const std::vector<std::string>& parts) {
  size_t total = 4;
  for (const std::string& p : parts) total += 4 + p.size();
  std::string out;
  out.reserve(total);
  HVD_CHECK(parts.size() <= UINT32_MAX, "too many strings to pack: ", parts.size());
  put_u32(out, static_cast<uint32_t>(parts.size()));
  for (const std::string& p : parts) {
    HVD_CHECK(p.size() <= UINT32_MAX, "string too long to pack: ", p.size());
    put_u32(out, static_cast<uint32_t>(p.size()));
    out += p;
  }
  return out;
}

std::vector<std::string> unpack_strings(std::string_view packed, std::string_view what) {
  size_t pos = 0;
  uint32_t count = 0;
  if (!get_u32(packed, pos, count)) {
    throw BootstrapError(str_cat(what, ": truncated (", packed.size(), " bytes)"));
  }
  std::vector<std::string> parts;
  // Each string needs at least its 4-byte length: a bound on count that a corrupt header
  // cannot turn into a huge allocation.
  if (count > (packed.size() - pos) / 4) {
    throw BootstrapError(
        str_cat(what, ": announces ", count, " strings in ", packed.size(), " bytes"));
  }
  parts.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t len = 0;
    if (!get_u32(packed, pos, len) || packed.size() - pos < len) {
      throw BootstrapError(str_cat(what, ": truncated in string ", i, " of ", count));
    }
    parts.emplace_back(packed.substr(pos, len));
    pos += len;
  }
  if (pos != packed.size()) {
    throw BootstrapError(str_cat(what, ": ", packed.size() - pos, " trailing bytes"));
  }
  return parts;
}

}  // namespace hvd::bootstrap
