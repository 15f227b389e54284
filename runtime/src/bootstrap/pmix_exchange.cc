// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/pmix_exchange.h"

#include <algorithm>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::bootstrap {
namespace {

void pmix_check(pmix_status_t rc, const std::string& what) {
  if (rc != PMIX_SUCCESS) {
    throw BackendError(str_cat("PMIx: ", what, " failed: ", PMIx_Error_string(rc), " (", rc, ")"));
  }
}

// Owns a value returned by PMIx_Get.
struct ValueGuard {
  pmix_value_t* value = nullptr;
  ~ValueGuard() {
    if (value != nullptr) PMIX_VALUE_RELEASE(value);
  }
};

std::optional<uint64_t> as_number(const pmix_value_t& v) {
  switch (v.type) {
    case PMIX_UINT8:
      return v.data.uint8;
    case PMIX_UINT16:
      return v.data.uint16;
    case PMIX_UINT32:
      return v.data.uint32;
    case PMIX_UINT64:
      return v.data.uint64;
    case PMIX_SIZE:
      return v.data.size;
    case PMIX_PROC_RANK:
      return v.data.rank;
    case PMIX_INT:
      return v.data.integer < 0 ? std::nullopt : std::optional<uint64_t>(v.data.integer);
    case PMIX_INT32:
      return v.data.int32 < 0 ? std::nullopt : std::optional<uint64_t>(v.data.int32);
    default:
      return std::nullopt;
  }
}

}  // namespace

PmixExchange::PmixExchange() {
  pmix_check(PMIx_Init(&me_, nullptr, 0), "PMIx_Init");
  try {
    const std::optional<uint64_t> size = get_number(PMIX_JOB_SIZE, /*job_level=*/true);
    if (!size || *size == 0 || *size > static_cast<uint64_t>(INT32_MAX)) {
      throw BootstrapError(str_cat("PMIx: the server gives no usable ", PMIX_JOB_SIZE,
                                   " for namespace ", me_.nspace));
    }
    size_ = static_cast<int>(*size);
  } catch (...) {
    PMIx_Finalize(nullptr, 0);
    throw;
  }
}

PmixExchange::~PmixExchange() { PMIx_Finalize(nullptr, 0); }

std::optional<uint64_t> PmixExchange::get_number(const char* key, bool job_level) const {
  pmix_proc_t proc;
  PMIX_PROC_LOAD(&proc, me_.nspace, job_level ? PMIX_RANK_WILDCARD : me_.rank);
  ValueGuard v;
  const pmix_status_t rc = PMIx_Get(&proc, key, nullptr, 0, &v.value);
  if (rc == PMIX_ERR_NOT_FOUND) return std::nullopt;
  pmix_check(rc, str_cat("PMIx_Get(", key, ")"));
  return v.value == nullptr ? std::nullopt : as_number(*v.value);
}

std::optional<std::string> PmixExchange::get_string(const char* key) const {
  ValueGuard v;
  const pmix_status_t rc = PMIx_Get(&me_, key, nullptr, 0, &v.value);
  if (rc == PMIX_ERR_NOT_FOUND) return std::nullopt;
  pmix_check(rc, str_cat("PMIx_Get(", key, ")"));
  if (v.value == nullptr || v.value->type != PMIX_STRING || v.value->data.string == nullptr) {
    return std::nullopt;
  }
  return std::string(v.value->data.string);
}

std::vector<std::string> PmixExchange::allgather(const std::string& mine,
                                                 std::chrono::milliseconds timeout) {
  const std::string key = str_cat("hvd.x.", round_++);
  pmix_value_t value;
  PMIX_VALUE_CONSTRUCT(&value);
  value.type = PMIX_BYTE_OBJECT;
  value.data.bo.bytes = const_cast<char*>(mine.data());  // PMIx_Put copies; we keep ownership
  value.data.bo.size = mine.size();
  pmix_check(PMIx_Put(PMIX_GLOBAL, key.c_str(), &value), str_cat("PMIx_Put(", key, ")"));
  pmix_check(PMIx_Commit(), "PMIx_Commit");

  pmix_info_t info[2];
  bool collect = true;
  // PMIx counts whole seconds; 0 would mean "forever".
  int seconds = static_cast<int>(std::clamp<int64_t>((timeout.count() + 999) / 1000, 1, INT32_MAX));
  PMIX_INFO_CONSTRUCT(&info[0]);
  PMIX_INFO_CONSTRUCT(&info[1]);
  PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &seconds, PMIX_INT);
  pmix_proc_t all;
  PMIX_PROC_LOAD(&all, me_.nspace, PMIX_RANK_WILDCARD);
  const pmix_status_t rc = PMIx_Fence(&all, 1, info, 2);
  PMIX_INFO_DESTRUCT(&info[0]);
  PMIX_INFO_DESTRUCT(&info[1]);
  if (rc == PMIX_ERR_TIMEOUT) {
    throw TimeoutError(
        str_cat("PMIx_Fence: not every rank of ", size_, " arrived within ", seconds, " s"));
  }
  pmix_check(rc, "PMIx_Fence");

  std::vector<std::string> blobs(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    pmix_proc_t proc;
    PMIX_PROC_LOAD(&proc, me_.nspace, static_cast<pmix_rank_t>(r));
    ValueGuard v;
    pmix_check(PMIx_Get(&proc, key.c_str(), nullptr, 0, &v.value),
               str_cat("PMIx_Get(", key, ") of rank ", r));
    if (v.value == nullptr || v.value->type != PMIX_BYTE_OBJECT) {
      throw BackendError(str_cat("PMIx_Get(", key, ") of rank ", r, ": not a byte object"));
    }
    blobs[static_cast<size_t>(r)].assign(v.value->data.bo.bytes, v.value->data.bo.size);
  }
  return blobs;
}

}  // namespace hvd::bootstrap
