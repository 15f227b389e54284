// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a transport's setup says when it runs out of time: the bound (the user's
// HVD_BOOTSTRAP_TIMEOUT, which libhvd gives every transport's setup) and, where the store can
// tell, the ranks that never published their entry, as those are the ones the others wait for.

#include <chrono>
#include <functional>
#include <string>

#include "bootstrap/kv_store.h"

namespace hvd::backends::ring {

/// Ranks among [0, size) other than `self` whose key(r) `store` does not hold, as
/// "rank 1" / "ranks 1, 5 and 3 more"; "" when all are there or the store cannot tell without
/// waiting (stores whose values travel only at barriers). Looks at no more than 256 ranks, so
/// that every rank of a large run timing out at once does not flood the store.
std::string unpublished_ranks(bootstrap::KvStore& store, const std::function<std::string(int)>& key,
                              int size, int self);

/// The TimeoutError a setup throws: "<what>: rank R: setup did not finish within T ms
/// (HVD_BOOTSTRAP_TIMEOUT): <missing, when known>; <cause>".
[[noreturn]] void throw_setup_timeout(const std::string& what, int rank,
                                      std::chrono::milliseconds timeout, const std::string& missing,
                                      const std::string& cause);

}  // namespace hvd::backends::ring
