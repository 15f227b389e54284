// SPDX-License-Identifier: Apache-2.0
#pragma once
// PmixExchange: a PMIx client session (PMIx_Init ... PMIx_Finalize) and the allgather an
// ExchangeStore needs, made of PMIx's own primitives: each rank PMIx_Put()s its blob under a
// fresh key, PMIx_Commit()s, PMIx_Fence()s over the job with PMIX_COLLECT_DATA, then
// PMIx_Get()s every rank's blob (local reads after the fence). Also answers the job-level
// queries (job size, local rank, node id) that PmixBootstrap needs.

#include <pmix.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bootstrap/exchange_store.h"

namespace hvd::bootstrap {

class PmixExchange final : public Exchange {
 public:
  /// PMIx_Init. Throws BackendError with PMIx's error string.
  PmixExchange();
  /// PMIx_Finalize.
  ~PmixExchange() override;
  PmixExchange(const PmixExchange&) = delete;
  PmixExchange& operator=(const PmixExchange&) = delete;

  int rank() const override { return static_cast<int>(me_.rank); }
  int size() const override { return size_; }
  std::string name() const override { return "PMIx"; }
  /// Throws TimeoutError when the fence times out, BackendError on other PMIx failures.
  std::vector<std::string> allgather(const std::string& mine,
                                     std::chrono::milliseconds timeout) override;

  /// An integer `key` about this process (or, with `job_level`, about the whole job), or
  /// nullopt when the server does not provide it. BackendError when PMIx fails otherwise.
  std::optional<uint64_t> get_number(const char* key, bool job_level) const;
  /// A string `key` about this process; nullopt when not provided.
  std::optional<std::string> get_string(const char* key) const;
  const char* nspace() const { return me_.nspace; }

 private:
  pmix_proc_t me_{};
  int size_ = 1;
  uint64_t round_ = 0;  // numbers the allgather keys: each round's key is new
};

}  // namespace hvd::bootstrap
