// SPDX-License-Identifier: Apache-2.0
#include "auth/handshake.h"

#include <sodium.h>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "net/socket.h"

namespace hvd::auth {
namespace {

constexpr std::string_view kInitiatorLabel = "hvd-auth-v1 initiator";
constexpr std::string_view kAcceptorLabel = "hvd-auth-v1 acceptor";

// HMAC-SHA256(secret, label | 0 | purpose | 0 | transcript). The zero bytes keep the fields
// from running into each other.
std::string mac(const RunSecret& secret, std::string_view label, std::string_view purpose,
                std::string_view transcript) {
  std::string msg;
  msg.reserve(label.size() + purpose.size() + transcript.size() + 2);
  msg.append(label).push_back('\0');
  msg.append(purpose).push_back('\0');
  msg.append(transcript);
  // libsodium rather than OpenSSL: OpenSSL 3 loads its provider and config on the first HMAC
  // (about 1.3 ms) and libcrypto's relocations cost 0.7 ms more at start-up, in hvdrun and in
  // every rank: +10 ms on an 8-rank launch here. sodium_init() takes microseconds.
  static_assert(crypto_auth_hmacsha256_BYTES == kMacBytes);
  if (sodium_init() < 0) throw InternalError("libsodium failed to initialize");
  unsigned char out[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, secret.bytes().data(), secret.bytes().size());
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(msg.data()),
                                msg.size());
  crypto_auth_hmacsha256_final(&state, out);
  return std::string(reinterpret_cast<const char*>(out), sizeof(out));
}

bool same(std::string_view a, std::string_view b) {
  return a.size() == b.size() && sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string nonce() {
  std::string n(kNonceBytes, '\0');
  random_bytes(reinterpret_cast<uint8_t*>(n.data()), n.size());
  return n;
}

}  // namespace

Acceptor::Acceptor(const RunSecret& secret, std::string_view purpose)
    : secret_(secret), purpose_(purpose), challenge_(std::string(kChallengeMagic) + nonce()) {}

bool Acceptor::check_response(std::string_view response) {
  if (response.size() != kResponseBytes) return false;
  const std::string transcript =
      challenge_.substr(kChallengeMagic.size()) + std::string(response.substr(0, kNonceBytes));
  if (!same(response.substr(kNonceBytes), mac(secret_, kInitiatorLabel, purpose_, transcript))) {
    return false;
  }
  confirm_ = mac(secret_, kAcceptorLabel, purpose_, transcript);
  return true;
}

Initiator::Initiator(const RunSecret& secret, std::string_view purpose)
    : secret_(secret), purpose_(purpose) {}

std::string Initiator::respond(std::string_view challenge) {
  if (challenge.size() != kChallengeBytes || challenge.substr(0, kChallengeMagic.size()) != kChallengeMagic) {
    throw BootstrapError("the peer did not open with hvdrun's authentication challenge");
  }
  const std::string mine = nonce();
  transcript_ = std::string(challenge.substr(kChallengeMagic.size())) + mine;
  return mine + mac(secret_, kInitiatorLabel, purpose_, transcript_);
}

void Initiator::check_confirmation(std::string_view confirm) const {
  if (transcript_.empty() || !same(confirm, mac(secret_, kAcceptorLabel, purpose_, transcript_))) {
    throw BootstrapError("the peer does not know this run's secret (not this job's service)");
  }
}

void prove_as_initiator(int fd, const RunSecret& secret, std::string_view purpose,
                        Deadline deadline) {
  Initiator me(secret, purpose);
  std::string challenge(kChallengeBytes, '\0');
  // Its first byte alone: a close or reset before it is the acceptor turning us away.
  bool opened = false;
  try {
    opened = net::read_exact(fd, challenge.data(), 1, deadline);
  } catch (const BootstrapError& e) {
    throw TurnedAway(str_cat("the peer closed the connection before its challenge: ", e.what()));
  }
  if (!opened) {
    throw TurnedAway(
        "the peer closed the connection before its challenge (too many connections "
        "authenticating at once)");
  }
  if (!net::read_exact(fd, challenge.data() + 1, challenge.size() - 1, deadline)) {
    throw BootstrapError("the peer closed the connection in the middle of its challenge");
  }
  const std::string response = me.respond(challenge);
  net::write_all(fd, response.data(), response.size(), deadline);
  std::string confirm(kConfirmBytes, '\0');
  if (!net::read_exact(fd, confirm.data(), confirm.size(), deadline)) {
    throw BootstrapError(
        "the peer refused this rank's proof of the run secret (HVD_RUN_SECRET differs?)");
  }
  me.check_confirmation(confirm);
}

bool prove_as_acceptor(int fd, const RunSecret& secret, std::string_view purpose,
                       Deadline deadline) {
  try {
    Acceptor me(secret, purpose);
    net::write_all(fd, me.challenge().data(), me.challenge().size(), deadline);
    std::string response(kResponseBytes, '\0');
    if (!net::read_exact(fd, response.data(), response.size(), deadline)) return false;
    if (!me.check_response(response)) return false;
    net::write_all(fd, me.confirmation().data(), me.confirmation().size(), deadline);
    return true;
  } catch (const TimeoutError&) {
    return false;
  } catch (const BootstrapError&) {
    return false;
  }
}

}  // namespace hvd::auth
