// SPDX-License-Identifier: Apache-2.0
#pragma once
// The per-run secret that keeps other users out of a job.
//
// hvdrun draws 256 random bits (getrandom) for every run and hands them to the ranks as hex in
// HVD_RUN_SECRET, through their environment only: never on a command line (visible in ps to
// every user) and never in a file. Everything that listens for a run's connections (the
// rendezvous store, the ring's listeners) makes each peer prove knowledge of it before acting
// on a single byte (auth/handshake.h). The secret itself never crosses the network.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace hvd::auth {

inline constexpr size_t kSecretBytes = 32;

class RunSecret {
 public:
  /// 256 fresh bits from getrandom(). Throws InternalError if the kernel has none to give.
  static RunSecret generate();
  /// Parses kSecretBytes * 2 hex digits. Throws BootstrapError naming `where` (the variable)
  /// without echoing the value, which is a secret even when malformed.
  static RunSecret from_hex(std::string_view hex, std::string_view where);

  std::string hex() const;
  const std::array<uint8_t, kSecretBytes>& bytes() const { return bytes_; }

 private:
  RunSecret() = default;
  std::array<uint8_t, kSecretBytes> bytes_{};
};

/// The secret from HVD_RUN_SECRET in `env`. Throws BootstrapError when it is missing (the rank
/// was not started by hvdrun, or its environment was scrubbed) or malformed.
RunSecret secret_from_env(const std::map<std::string, std::string>& env);

/// `n` bytes from getrandom(), for nonces. Throws InternalError on failure.
void random_bytes(uint8_t* out, size_t n);

/// `n` random bytes as 2n lowercase hex digits: the unpredictable part of a file name that
/// another user must not guess before it exists (checkpoint notice, timeline rank files).
std::string random_hex(size_t n);

}  // namespace hvd::auth
