// SPDX-License-Identifier: Apache-2.0
#pragma once
// Mutual challenge-response proof that both ends of a connection know the run's secret
// (auth/run_secret.h), run before any other byte is acted on, as Horovod's driver service
// signs its messages with a per-run key.
//
//   acceptor -> initiator   challenge = "HVDAUTH1" | nonce_a              (40 bytes)
//   initiator -> acceptor   response  = nonce_i | HMAC(K, I-label | purpose | nonce_a | nonce_i)
//                                                                        (64 bytes)
//   acceptor -> initiator   confirm   = HMAC(K, A-label | purpose | nonce_a | nonce_i)
//                                                                        (32 bytes)
//
// HMAC is HMAC-SHA256 (libsodium), compared in constant time. The acceptor's fresh nonce stops a
// recorded response from being replayed; the initiator's stops a recorded confirmation; the two
// labels stop a reflected MAC; `purpose` ("store", "ring") keeps a proof for one service from
// being used at another. The acceptor answers a wrong response with nothing: it closes.
//
// The messages are fixed-size so that a poll()-driven server (store/kv_server.cc) can run the
// acceptor side without blocking; the blocking helpers below serve the ring and the clients.

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "auth/run_secret.h"
#include "hvd/error.h"

namespace hvd::auth {

inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kMacBytes = 32;
inline constexpr std::string_view kChallengeMagic = "HVDAUTH1";
inline constexpr size_t kChallengeBytes = kChallengeMagic.size() + kNonceBytes;
inline constexpr size_t kResponseBytes = kNonceBytes + kMacBytes;
inline constexpr size_t kConfirmBytes = kMacBytes;

/// The listening side of one connection.
class Acceptor {
 public:
  Acceptor(const RunSecret& secret, std::string_view purpose);
  /// The first message; send it as soon as the connection is accepted.
  const std::string& challenge() const { return challenge_; }
  /// Whether `response` (exactly kResponseBytes, else false) proves the secret. On true,
  /// confirmation() is ready to send.
  bool check_response(std::string_view response);
  const std::string& confirmation() const { return confirm_; }

 private:
  const RunSecret& secret_;
  std::string purpose_;
  std::string challenge_;
  std::string confirm_;
};

/// The connecting side of one connection.
class Initiator {
 public:
  Initiator(const RunSecret& secret, std::string_view purpose);
  /// The response to `challenge`. Throws BootstrapError when it is not a challenge (the peer
  /// is not an hvdrun service).
  std::string respond(std::string_view challenge);
  /// Throws BootstrapError when `confirm` does not prove the secret (the peer is an impostor).
  void check_confirmation(std::string_view confirm) const;

 private:
  const RunSecret& secret_;
  std::string purpose_;
  std::string transcript_;  // nonce_a | nonce_i once respond() ran
};

using Deadline = std::chrono::steady_clock::time_point;

/// The acceptor closed the connection before sending its challenge: it had no room for one more
/// connection to authenticate (a flood of other users' connections), never a refused proof,
/// which comes after the challenge. The initiator may connect again.
struct TurnedAway : BootstrapError {
  using BootstrapError::BootstrapError;
};

/// Blocking initiator side over a connected socket. Throws TurnedAway (closed before the
/// challenge), BootstrapError (the peer failed the proof or closed) or TimeoutError (past
/// deadline).
void prove_as_initiator(int fd, const RunSecret& secret, std::string_view purpose,
                        Deadline deadline);

/// Blocking acceptor side. Returns false when the peer failed the proof, closed, or did not
/// answer by deadline (the caller just closes it); true once both sides are proven.
bool prove_as_acceptor(int fd, const RunSecret& secret, std::string_view purpose,
                       Deadline deadline);

}  // namespace hvd::auth
