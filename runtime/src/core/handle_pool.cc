// SPDX-License-Identifier: Apache-2.0
#include "core/handle_pool.h"

#include <new>
#include <vector>

namespace hvd::core {
namespace {

// Enough for a step of a large model's gradients; beyond it, blocks go back to malloc.
constexpr size_t kMaxKept = 4096;

// Under AddressSanitizer every handle comes from operator new, so that a handle used after it
// was freed is still reported (a pooled block is reused without ASan seeing a free).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif
#else
constexpr bool kPooled = true;
#endif

struct ThreadPool {
  size_t block_bytes = 0;  // the one size kept; 0 until the first allocation
  std::vector<void*> free;
  ~ThreadPool();
};

// Trivially destructible, so it can still be read while (and after) the thread's pool goes.
thread_local bool t_pool_gone = false;
thread_local ThreadPool t_pool;

ThreadPool::~ThreadPool() {
  t_pool_gone = true;
  for (void* block : free) ::operator delete(block);
}

}  // namespace

bool handle_pool_enabled() { return kPooled; }

void* handle_pool_allocate(size_t bytes) {
  if (kPooled && !t_pool_gone) {
    ThreadPool& pool = t_pool;
    if (pool.block_bytes == 0) pool.block_bytes = bytes;
    if (bytes == pool.block_bytes && !pool.free.empty()) {
      void* block = pool.free.back();
      pool.free.pop_back();
      return block;
    }
  }
  return ::operator new(bytes);
}

void handle_pool_deallocate(void* block, size_t bytes) {
  if (kPooled && !t_pool_gone) {
    ThreadPool& pool = t_pool;
    if (bytes == pool.block_bytes && pool.free.size() < kMaxKept) {
      pool.free.push_back(block);  // may allocate: the vector grows to at most kMaxKept once
      return;
    }
  }
  ::operator delete(block);
}

}  // namespace hvd::core
