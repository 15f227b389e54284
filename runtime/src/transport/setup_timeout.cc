// SPDX-License-Identifier: Apache-2.0
#include "transport/setup_timeout.h"

#include <algorithm>
#include <vector>

#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::backends::ring {
namespace {

constexpr int kMostProbed = 256;
constexpr size_t kMostNamed = 8;

}  // namespace

std::string unpublished_ranks(bootstrap::KvStore& store, const std::function<std::string(int)>& key,
                              int size, int self) {
  std::vector<int> missing;
  for (int r = 0; r < std::min(size, kMostProbed); ++r) {
    if (r == self) continue;
    try {
      store.get(key(r), std::chrono::milliseconds(0));
    } catch (const TimeoutError&) {
      missing.push_back(r);
    } catch (...) {
      // Not a "not yet": this store cannot look without a barrier, or the connection is gone.
      // Only a note for the timeout's message, which must not be lost to it.
      return {};
    }
  }
  if (missing.empty()) return {};
  std::string text = missing.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < std::min(missing.size(), kMostNamed); ++i) {
    text += str_cat(i == 0 ? "" : ", ", missing[i]);
  }
  if (missing.size() > kMostNamed) text += str_cat(" and ", missing.size() - kMostNamed, " more");
  if (size > kMostProbed) text += str_cat(" (of the first ", kMostProbed, ")");
  return text;
}

void throw_setup_timeout(const std::string& what, int rank, std::chrono::milliseconds timeout,
                         const std::string& missing, const std::string& cause) {
  std::string text = str_cat(what, ": rank ", rank, ": setup did not finish within ",
                             timeout.count(), " ms (", env::kBootstrapTimeout, ")");
  if (!missing.empty()) text += str_cat(": ", missing, " never showed up");
  throw TimeoutError(str_cat(text, "; ", cause));
}

}  // namespace hvd::backends::ring
