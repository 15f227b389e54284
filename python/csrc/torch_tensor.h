// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one door between torch and libhvd: a torch.Tensor (a Python object) described as an
// hvd::TensorView over its own memory, with no copy. Only torch_tensor.cc includes torch's
// headers, which take most of the extension's compile time.

#include <pybind11/pytypes.h>

#include "hvd/hvd.h"

namespace hvd::torch_ext {

/// A view of `tensor`'s storage: its data pointer, dtype, shape and device (CPU, or the CUDA
/// device index). Throws pybind11::type_error for a non-tensor or a dtype libhvd lacks, and
/// pybind11::value_error for a non-contiguous tensor or a device other than CPU and CUDA.
TensorView tensor_view(pybind11::handle tensor);

}  // namespace hvd::torch_ext
