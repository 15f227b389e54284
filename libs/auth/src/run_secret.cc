// SPDX-License-Identifier: Apache-2.0
#include "auth/run_secret.h"

#include <sys/random.h>

#include <cerrno>
#include <vector>

#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::auth {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void random_bytes(uint8_t* out, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t rc = ::getrandom(out + got, n - got, 0);
    if (rc < 0) {
      if (errno == EINTR) continue;
      throw InternalError(str_cat("getrandom failed (errno ", errno, ")"));
    }
    got += static_cast<size_t>(rc);
  }
}

std::string random_hex(size_t n) {
  std::vector<uint8_t> bytes(n);
  random_bytes(bytes.data(), n);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (const uint8_t b : bytes) {
    text += kHex[b >> 4];
    text += kHex[b & 0xf];
  }
  return text;
}

RunSecret RunSecret::generate() {
  RunSecret s;
  random_bytes(s.bytes_.data(), s.bytes_.size());
  return s;
}

RunSecret RunSecret::from_hex(std::string_view hex, std::string_view where) {
  if (hex.size() != kSecretBytes * 2) {
    throw BootstrapError(str_cat(where, " must be ", kSecretBytes * 2, " hex digits (it has ",
                                 hex.size(), " characters); it is set by hvdrun"));
  }
  RunSecret s;
  for (size_t i = 0; i < kSecretBytes; ++i) {
    const int hi = hex_digit(hex[2 * i]);
    const int lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      throw BootstrapError(str_cat(where, " is not hex; it is set by hvdrun"));
    }
    s.bytes_[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return s;
}

std::string RunSecret::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes_.size() * 2);
  for (const uint8_t b : bytes_) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

RunSecret secret_from_env(const std::map<std::string, std::string>& env) {
  const auto it = env.find(env::kRunSecret);
  if (it == env.end() || it->second.empty()) {
    throw BootstrapError(str_cat(env::kRunSecret,
                                 " is not set: this rank was not started by hvdrun, or its "
                                 "environment was cleared (keep hvdrun's variables)"));
  }
  return RunSecret::from_hex(it->second, env::kRunSecret);
}

}  // namespace hvd::auth
