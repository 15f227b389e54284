// SPDX-License-Identifier: Apache-2.0
// The C API (hvd/hvd_c.h) over the C++ one. No exception crosses it.

#include <string>

#include "hvd/hvd.h"
#include "hvd/hvd_c.h"

struct hvd_handle {
  hvd::Handle handle;
};

namespace {

thread_local std::string t_last_error;

int report(const hvd::Status& s) {
  if (s.ok()) return 0;
  t_last_error = s.message();
  return static_cast<int>(s.code()) + 1;
}

hvd::TensorView view(const hvd_tensor* t) {
  hvd::TensorView v;
  v.data = t->data;
  v.dtype = static_cast<hvd::DataType>(t->dtype);
  v.shape.assign(t->shape, t->shape + t->ndim);
  v.device.index = t->device;
  return v;
}

// Checks the arguments every call shares; 0 when they are usable.
int check(const char* name, const hvd_tensor* in, hvd_handle** handle) {
  if (name == nullptr || in == nullptr || handle == nullptr ||
      (in->ndim > 0 && in->shape == nullptr)) {
    t_last_error = "a NULL name, tensor, shape or handle pointer";
    return static_cast<int>(hvd::ErrorCode::kUsage) + 1;
  }
  if (static_cast<int>(in->dtype) < 0 || in->dtype > HVD_INT16 || in->ndim < 0) {
    t_last_error = "an unknown dtype or a negative ndim";
    return static_cast<int>(hvd::ErrorCode::kUsage) + 1;
  }
  return 0;
}

int hand_out(hvd::Handle h, hvd_handle** out) {
  *out = new hvd_handle{std::move(h)};
  return 0;
}

}  // namespace

extern "C" {

int hvd_init(void) { return report(hvd::init()); }
int hvd_shutdown(void) { return report(hvd::shutdown()); }
int hvd_rank(void) { return hvd::rank(); }
int hvd_size(void) { return hvd::size(); }
int hvd_local_rank(void) { return hvd::local_rank(); }
int hvd_local_size(void) { return hvd::local_size(); }
int hvd_cross_rank(void) { return hvd::cross_rank(); }
int hvd_cross_size(void) { return hvd::cross_size(); }
const char* hvd_last_error(void) { return t_last_error.c_str(); }

int hvd_allreduce_async(const char* name, const hvd_tensor* in, const hvd_tensor* out, hvd_op op,
                        double prescale, double postscale, hvd_handle** handle) {
  if (int rc = check(name, in, handle) | check(name, out, handle)) return rc;
  return hand_out(hvd::allreduce_async(name, view(in), view(out), static_cast<hvd::ReduceOp>(op),
                                       prescale, postscale),
                  handle);
}

int hvd_broadcast_async(const char* name, const hvd_tensor* in, const hvd_tensor* out, int root,
                        hvd_handle** handle) {
  if (int rc = check(name, in, handle) | check(name, out, handle)) return rc;
  return hand_out(hvd::broadcast_async(name, view(in), view(out), root), handle);
}

int hvd_allgather_async(const char* name, const hvd_tensor* in, hvd_handle** handle) {
  if (int rc = check(name, in, handle)) return rc;
  return hand_out(hvd::allgather_async(name, view(in)), handle);
}

int hvd_reducescatter_async(const char* name, const hvd_tensor* in, const hvd_tensor* out,
                            hvd_op op, hvd_handle** handle) {
  if (int rc = check(name, in, handle) | check(name, out, handle)) return rc;
  return hand_out(
      hvd::reducescatter_async(name, view(in), view(out), static_cast<hvd::ReduceOp>(op)), handle);
}

int hvd_alltoall_async(const char* name, const hvd_tensor* in, const hvd_tensor* out,
                       hvd_handle** handle) {
  if (int rc = check(name, in, handle) | check(name, out, handle)) return rc;
  return hand_out(hvd::alltoall_async(name, view(in), view(out)), handle);
}

int hvd_barrier(void) { return report(hvd::barrier()); }
int hvd_join(int device, int* last_joined_rank) {
  return report(hvd::join(last_joined_rank, hvd::Device{device}));
}
int hvd_wait(hvd_handle* handle) { return report(handle->handle.wait()); }
int hvd_poll(const hvd_handle* handle) { return handle->handle.poll() ? 1 : 0; }

const void* hvd_output(const hvd_handle* handle, size_t* bytes) {
  *bytes = handle->handle.output().size();
  return handle->handle.output().data();
}

const int64_t* hvd_output_shape(const hvd_handle* handle, int* ndim) {
  *ndim = static_cast<int>(handle->handle.output_shape().size());
  return handle->handle.output_shape().data();
}

void hvd_release(hvd_handle* handle) { delete handle; }

}  // extern "C"
