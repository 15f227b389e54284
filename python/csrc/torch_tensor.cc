// SPDX-License-Identifier: Apache-2.0
// The only translation unit that includes torch's headers (python_variable.h brings ATen's
// Tensor); the rest of the extension sees plain TensorViews, so a change elsewhere never
// recompiles against torch.

#include "torch_tensor.h"

#include <torch/csrc/autograd/python_variable.h>

#include <string>

namespace hvd::torch_ext {
namespace {

DataType to_hvd(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Byte:
      return DataType::kUInt8;
    case c10::ScalarType::Char:
      return DataType::kInt8;
    case c10::ScalarType::Short:
      return DataType::kInt16;
    case c10::ScalarType::Int:
      return DataType::kInt32;
    case c10::ScalarType::Long:
      return DataType::kInt64;
    case c10::ScalarType::Half:
      return DataType::kFloat16;
    case c10::ScalarType::BFloat16:
      return DataType::kBFloat16;
    case c10::ScalarType::Float:
      return DataType::kFloat32;
    case c10::ScalarType::Double:
      return DataType::kFloat64;
    default:
      // bool is moved as uint8 by Python (hvdrun/torch/wire.py); complex and the rest are
      // not Horovod's either.
      throw pybind11::type_error(std::string("hvdrun.torch: tensors of dtype ") +
                                 c10::toString(t) + " are not supported by libhvd");
  }
}

}  // namespace

TensorView tensor_view(pybind11::handle tensor) {
  if (!THPVariable_Check(tensor.ptr())) {
    throw pybind11::type_error("hvdrun.torch: expected a torch.Tensor");
  }
  const at::Tensor& t = THPVariable_Unpack(tensor.ptr());
  if (!t.is_contiguous()) {
    throw pybind11::value_error("hvdrun.torch: the tensor must be contiguous");
  }
  TensorView v;
  v.dtype = to_hvd(t.scalar_type());
  v.data = t.numel() == 0 ? nullptr : t.data_ptr();
  v.shape.assign(t.sizes().begin(), t.sizes().end());
  if (t.is_cuda()) {
    v.device.index = t.get_device();
  } else if (!t.is_cpu()) {
    throw pybind11::value_error("hvdrun.torch: tensors on " + t.device().str() +
                                " are not supported (CPU and CUDA only)");
  }
  return v;
}

}  // namespace hvd::torch_ext
