// SPDX-License-Identifier: Apache-2.0
#include "bench/hvd_backend_impl.h"

#include "backends/registry.h"
#include "bootstrap/bootstrap.h"
#include "core/ring_secret.h"

namespace hvd::bench {

HvdBackendImpl::HvdBackendImpl(const EnvMap& env) {
  // The same steps as core::make_instance, minus the control channel and the runtime.
  const std::string host_backend = backends::choose_host_backend(env);
  const bootstrap::BootstrapOptions boot_options = bootstrap::bootstrap_options_from_env(env);
  boot_ = bootstrap::bootstrap(env, boot_options);
  const std::string kind = backends::choose_ring_transport(env, boot_.world);
  const auth::RunSecret secret =
      core::ring_secret(env, *boot_.store, boot_.world, boot_options.timeout);
  backend_ = backends::make_host_backend(
      host_backend, kind, env, *boot_.store, boot_.world, secret,
      backends::ring::transport_setup(env, boot_.world, boot_options.timeout));
}

RunOnce HvdBackendImpl::prepare(Op op, const std::string& /*algorithm*/, Buffers& bufs,
                                ReduceOp redop, int root) {
  backends::Backend& be = *backend_;
  const BufferView out{bufs.out.data(), bufs.out.size() / dtype_size(bufs.dtype), bufs.dtype, {}};
  switch (op) {
    case Op::kAllreduce:
      return [&be, out, redop] { be.allreduce(out, redop); };
    case Op::kBroadcast:
      return [&be, out, root] { be.broadcast(out, root); };
    case Op::kAllgather: {
      const BufferView in{bufs.in.data(), bufs.count, bufs.dtype, {}};
      const std::vector<size_t> counts(static_cast<size_t>(boot_.world.size), bufs.count);
      return [&be, in, out, counts] { be.allgatherv(in, out, counts); };
    }
  }
  return [] {};
}

void HvdBackendImpl::reduce(std::vector<double>& values, ReduceOp op) {
  backend_->allreduce(BufferView{values.data(), values.size(), DataType::kFloat64, {}}, op);
}

}  // namespace hvd::bench
