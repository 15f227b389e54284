// SPDX-License-Identifier: Apache-2.0
#pragma once
// The allocator of handles (a HandleState and its shared_ptr control block, one allocation).
// A training step makes a few hundred handles and drops them together, more than malloc's
// per-thread cache holds (7 per size), and malloc's slow path (bins, consolidation) then cost
// more per tensor than the rest of its enqueue. So each thread keeps the blocks it freed, up
// to a bound, for its next handles. std::pmr's synchronized pool was slower than malloc here
// (a reader-writer lock per call).

#include <cstddef>

namespace hvd::core {

/// A block of `bytes` from this thread's pool when it holds one of that size (the pool keeps
/// one size: the first it is asked for), else from operator new.
void* handle_pool_allocate(size_t bytes);
/// Returns a block of handle_pool_allocate() to this thread's pool, or to operator delete when
/// the pool is full, of another size, or its thread is exiting.
void handle_pool_deallocate(void* block, size_t bytes);
/// Whether this build pools at all (not under AddressSanitizer, which must see every free).
bool handle_pool_enabled();

/// The allocator std::allocate_shared uses for handles (core/tensor_queue.cc: new_handle()).
template <typename T>
struct HandlePoolAllocator {
  using value_type = T;
  HandlePoolAllocator() = default;
  template <typename U>
  explicit HandlePoolAllocator(const HandlePoolAllocator<U>& /*other*/) {}
  T* allocate(size_t n) { return static_cast<T*>(handle_pool_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { handle_pool_deallocate(p, n * sizeof(T)); }
};

template <typename T, typename U>
bool operator==(const HandlePoolAllocator<T>&, const HandlePoolAllocator<U>&) {
  return true;
}
template <typename T, typename U>
bool operator!=(const HandlePoolAllocator<T>&, const HandlePoolAllocator<U>&) {
  return false;
}

}  // namespace hvd::core
