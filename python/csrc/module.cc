// SPDX-License-Identifier: Apache-2.0
// hvdrun.torch._hvd_torch: libhvd's C++ API for Python, in Horovod's shape (int handles, poll,
// wait). Tensors come in as torch.Tensor objects and go to libhvd as pointers into their own
// storage (torch_tensor.h); Python keeps them alive until their handle is released.
// Horovod's argument handling (defaults, op names, compression, autograd) is in Python
// (hvdrun/torch/*.py); this layer only enqueues, waits and reports.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "handle_table.h"
#include "hvd/build_config.h"
#include "hvd/error.h"
#include "hvd/hvd.h"
#include "torch_tensor.h"

namespace py = pybind11;

namespace hvd::torch_ext {
namespace {

HandleTable g_handles;

// Horovod raises RuntimeError from its C layer and turns it into HorovodInternalError in
// Python; the code's name leads the message so that Python (and a user) can tell a peer's
// failure from a usage error.
[[noreturn]] void raise(const Status& s) {
  throw std::runtime_error(std::string(error_code_name(s.code())) + ": " + s.message());
}

void check(const Status& s) {
  if (!s.ok()) raise(s);
}

// Runs `call` (libhvd's, returning Status) without the GIL: it may block on the other ranks,
// and meanwhile this process's other Python threads (and autograd hooks) keep running.
template <typename Call>
Status without_gil(Call&& call) {
  py::gil_scoped_release unlocked;
  return call();
}

// without_gil(), then the failure raised as Python's RuntimeError.
template <typename Call>
void checked_without_gil(Call&& call) {
  check(without_gil(std::forward<Call>(call)));
}

ReduceOp reduce_op(int op) {
  if (op < 0 || op > static_cast<int>(ReduceOp::kAdasum)) {
    throw py::value_error("hvdrun.torch: unknown reduction op " + std::to_string(op));
  }
  return static_cast<ReduceOp>(op);
}

std::vector<TensorView> views(const py::list& tensors) {
  std::vector<TensorView> out;
  out.reserve(tensors.size());
  for (py::handle t : tensors) out.push_back(tensor_view(t));
  return out;
}

void wait(int64_t id) {
  const Handle h = g_handles.get(id);
  checked_without_gil([&h] { return h.wait(); });
}

// Copies an allgather's or alltoallv's result (host memory owned by the handle) into `dst`, a CPU tensor that
// Python allocated with output_shape(). The one copy the runtime's allgather API implies.
void copy_output(int64_t id, py::handle dst) {
  const Handle h = g_handles.get(id);
  const TensorView v = tensor_view(dst);
  if (!v.device.is_cpu()) throw py::value_error("hvdrun.torch: copy_output needs a CPU tensor");
  const std::vector<char>& bytes = h.output();
  if (v.count() * dtype_size(v.dtype) != bytes.size()) {
    throw py::value_error("hvdrun.torch: the output tensor has " +
                          std::to_string(v.count() * dtype_size(v.dtype)) + " bytes, the result " +
                          std::to_string(bytes.size()));
  }
  if (!bytes.empty()) std::memcpy(v.data, bytes.data(), bytes.size());
}

void def_setup(py::module_& m) {
  m.def("init", [] { checked_without_gil([] { return hvd::init(); }); });
  m.def("shutdown", [] {
    const Status s = without_gil([] { return hvd::shutdown(); });
    g_handles.clear();  // also when shutdown failed: no handle outlives the runtime
    check(s);
  });
  m.def("is_initialized", &hvd::initialized);
  m.def("rank", &hvd::rank);
  m.def("size", &hvd::size);
  m.def("local_rank", &hvd::local_rank);
  m.def("local_size", &hvd::local_size);
  m.def("cross_rank", &hvd::cross_rank);
  m.def("cross_size", &hvd::cross_size);
  m.def("start_timeline", [](const std::string& path, bool mark_cycles) {
    checked_without_gil([&] { return hvd::start_timeline(path, mark_cycles); });
  });
  m.def("stop_timeline", [] { checked_without_gil([] { return hvd::stop_timeline(); }); });

  // What this libhvd was compiled with (hvd/build_config.h).
  m.attr("MPI_BUILT") = HVD_HAVE_MPI != 0;
  m.attr("NCCL_BUILT") = HVD_HAVE_GPU_BACKEND != 0;
  m.attr("NCCL_VERSION") = HVD_HAVE_GPU_BACKEND != 0 ? HVD_NCCL_VERSION : "";
  m.attr("CUDA_BUILT") = HVD_HAVE_GPU_BACKEND != 0;
  m.attr("VERSION") = HVD_VERSION;
}

// Every collective's last argument is the process set's id (0: all ranks).
void def_reductions(py::module_& m) {
  m.def("allreduce_async", [](const std::string& name, py::handle in, py::handle out, int op,
                              double prescale, double postscale, int set) {
    return g_handles.add(hvd::allreduce_async(name, tensor_view(in), tensor_view(out),
                                              reduce_op(op), prescale, postscale, set));
  });
  m.def("grouped_allreduce_async", [](const std::vector<std::string>& names, const py::list& in,
                                      const py::list& out, int op, double prescale,
                                      double postscale, int set) {
    std::vector<int64_t> ids;
    for (Handle& h : hvd::grouped_allreduce_async(names, views(in), views(out), reduce_op(op),
                                                  prescale, postscale, set)) {
      ids.push_back(g_handles.add(std::move(h)));
    }
    return ids;
  });
  m.def("reducescatter_async",
        [](const std::string& name, py::handle in, py::handle out, int op, double prescale,
           double postscale, int set) {
          return g_handles.add(hvd::reducescatter_async(name, tensor_view(in), tensor_view(out),
                                                        reduce_op(op), prescale, postscale, set));
        });
}

void def_movements(py::module_& m) {
  m.def("broadcast_async",
        [](const std::string& name, py::handle in, py::handle out, int root, int set) {
          return g_handles.add(
              hvd::broadcast_async(name, tensor_view(in), tensor_view(out), root, set));
        });
  m.def("allgather_async", [](const std::string& name, py::handle in, int set) {
    return g_handles.add(hvd::allgather_async(name, tensor_view(in), set));
  });
  m.def("alltoall_async", [](const std::string& name, py::handle in, py::handle out, int set) {
    return g_handles.add(hvd::alltoall_async(name, tensor_view(in), tensor_view(out), set));
  });
  m.def("alltoallv_async", [](const std::string& name, py::handle in,
                              const std::vector<int64_t>& splits, int set) {
    return g_handles.add(hvd::alltoallv_async(name, tensor_view(in), splits, set));
  });
  m.def("received_splits", [](int64_t id) { return g_handles.get(id).received_splits(); });
}

void def_synchronisation(py::module_& m) {
  m.def("barrier", [](int set) { checked_without_gil([set] { return hvd::barrier(set); }); });
  m.def("join", [](int device) {
    int last_joined_rank = -1;
    // The other ranks may need many steps to join.
    checked_without_gil([&] { return hvd::join(&last_joined_rank, Device{device}); });
    return last_joined_rank;
  });
}

void def_process_sets(py::module_& m) {
  m.def("add_process_set", [](const std::vector<int>& ranks) {
    int id = -1;
    checked_without_gil([&] { return hvd::add_process_set(ranks, &id); });
    return id;
  });
  m.def("remove_process_set",
        [](int id) { checked_without_gil([id] { return hvd::remove_process_set(id); }); });
  m.def("process_set_ranks", &hvd::process_set_ranks);
  m.def("process_set_rank", &hvd::process_set_rank);
  m.def("process_set_ids", &hvd::process_set_ids);
}

void def_handles(py::module_& m) {
  m.def("poll", [](int64_t id) { return g_handles.get(id).poll(); });
  m.def("wait", &wait);
  m.def("output_shape", [](int64_t id) { return g_handles.get(id).output_shape(); });
  m.def("copy_output", &copy_output);
  m.def("release", [](int64_t id) { g_handles.release(id); });
}

}  // namespace
}  // namespace hvd::torch_ext

PYBIND11_MODULE(_hvd_torch, m) {
  using namespace hvd::torch_ext;
  m.doc() = "libhvd for hvdrun.torch (internal; use hvdrun.torch)";
  def_setup(m);
  def_reductions(m);
  def_movements(m);
  def_synchronisation(m);
  def_process_sets(m);
  def_handles(m);
}
