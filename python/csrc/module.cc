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
#include <vector>

#include "handle_table.h"
#include "hvd/build_config.h"
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
  static const char* const kNames[] = {"usage",     "config",  "scheduler", "launch",
                                       "bootstrap", "backend", "timeout",   "internal"};
  throw std::runtime_error(std::string(kNames[static_cast<int>(s.code())]) + ": " + s.message());
}

void check(const Status& s) {
  if (!s.ok()) raise(s);
}

ReduceOp reduce_op(int op) {
  if (op < 0 || op > static_cast<int>(ReduceOp::kProduct)) {
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
  Status s;
  {
    py::gil_scoped_release unlocked;  // other Python threads (and autograd hooks) keep running
    s = h.wait();
  }
  check(s);
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

}  // namespace
}  // namespace hvd::torch_ext

PYBIND11_MODULE(_hvd_torch, m) {
  using namespace hvd;
  using namespace hvd::torch_ext;
  m.doc() = "libhvd for hvdrun.torch (internal; use hvdrun.torch)";

  m.def("init", [] {
    Status s;
    {
      py::gil_scoped_release unlocked;
      s = hvd::init();
    }
    check(s);
  });
  m.def("shutdown", [] {
    Status s;
    {
      py::gil_scoped_release unlocked;
      s = hvd::shutdown();
    }
    g_handles.clear();
    check(s);
  });
  m.def("is_initialized", &hvd::initialized);
  m.def("rank", &hvd::rank);
  m.def("size", &hvd::size);
  m.def("local_rank", &hvd::local_rank);
  m.def("local_size", &hvd::local_size);
  m.def("cross_rank", &hvd::cross_rank);
  m.def("cross_size", &hvd::cross_size);

  // What this libhvd was compiled with (hvd/build_config.h).
  m.attr("MPI_BUILT") = HVD_HAVE_MPI != 0;
  m.attr("NCCL_BUILT") = HVD_HAVE_GPU_BACKEND != 0;
  m.attr("CUDA_BUILT") = HVD_HAVE_GPU_BACKEND != 0;
  m.attr("VERSION") = HVD_VERSION;

  // Every collective's last argument is the process set's id (0: all ranks).
  m.def("allreduce_async", [](const std::string& name, py::handle in, py::handle out, int op,
                              double prescale, double postscale, int set) {
    return g_handles.add(hvd::allreduce_async(name, tensor_view(in), tensor_view(out),
                                              reduce_op(op), prescale, postscale, set));
  });
  m.def("grouped_allreduce_async", [](const std::vector<std::string>& names, const py::list& in,
                                      const py::list& out, int op, int set) {
    std::vector<int64_t> ids;
    for (Handle& h :
         hvd::grouped_allreduce_async(names, views(in), views(out), reduce_op(op), set)) {
      ids.push_back(g_handles.add(std::move(h)));
    }
    return ids;
  });
  m.def("broadcast_async",
        [](const std::string& name, py::handle in, py::handle out, int root, int set) {
          return g_handles.add(
              hvd::broadcast_async(name, tensor_view(in), tensor_view(out), root, set));
        });
  m.def("allgather_async", [](const std::string& name, py::handle in, int set) {
    return g_handles.add(hvd::allgather_async(name, tensor_view(in), set));
  });
  m.def("reducescatter_async",
        [](const std::string& name, py::handle in, py::handle out, int op, int set) {
          return g_handles.add(hvd::reducescatter_async(name, tensor_view(in), tensor_view(out),
                                                        reduce_op(op), set));
        });
  m.def("alltoall_async", [](const std::string& name, py::handle in, py::handle out, int set) {
    return g_handles.add(hvd::alltoall_async(name, tensor_view(in), tensor_view(out), set));
  });
  m.def("alltoallv_async", [](const std::string& name, py::handle in,
                              const std::vector<int64_t>& splits, int set) {
    return g_handles.add(hvd::alltoallv_async(name, tensor_view(in), splits, set));
  });
  m.def("received_splits", [](int64_t id) { return g_handles.get(id).received_splits(); });
  m.def("barrier", [](int set) {
    Status s;
    {
      py::gil_scoped_release unlocked;
      s = hvd::barrier(set);
    }
    check(s);
  });
  m.def("join", [](int device) {
    int last_joined_rank = -1;
    Status s;
    {
      py::gil_scoped_release unlocked;  // the other ranks may need many steps to join
      s = hvd::join(&last_joined_rank, Device{device});
    }
    check(s);
    return last_joined_rank;
  });

  m.def("add_process_set", [](const std::vector<int>& ranks) {
    Status s;
    int id = -1;
    {
      py::gil_scoped_release unlocked;
      s = hvd::add_process_set(ranks, &id);
    }
    check(s);
    return id;
  });
  m.def("remove_process_set", [](int id) {
    Status s;
    {
      py::gil_scoped_release unlocked;
      s = hvd::remove_process_set(id);
    }
    check(s);
  });
  m.def("start_timeline", [](const std::string& path, bool mark_cycles) {
    Status s;
    {
      py::gil_scoped_release unlocked;
      s = hvd::start_timeline(path, mark_cycles);
    }
    check(s);
  });
  m.def("stop_timeline", [] {
    Status s;
    {
      py::gil_scoped_release unlocked;
      s = hvd::stop_timeline();
    }
    check(s);
  });
  m.def("process_set_ranks", &hvd::process_set_ranks);
  m.def("process_set_rank", &hvd::process_set_rank);
  m.def("process_set_ids", &hvd::process_set_ids);

  m.def("poll", [](int64_t id) { return g_handles.get(id).poll(); });
  m.def("wait", &wait);
  m.def("output_shape", [](int64_t id) { return g_handles.get(id).output_shape(); });
  m.def("copy_output", &copy_output);
  m.def("release", [](int64_t id) { g_handles.release(id); });
}
