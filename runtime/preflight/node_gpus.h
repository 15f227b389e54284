// SPDX-License-Identifier: Apache-2.0
#pragma once
// How many NVIDIA GPUs the node has, whatever this rank may use: the NVIDIA driver lists every
// GPU it drives under /proc/driver/nvidia/gpus/<PCI bus id>/, with or without
// CUDA_VISIBLE_DEVICES, so preflight can tell a node that lost a GPU (fell off the bus, not
// seen by the driver) from a rank bound to one of four.

#include <string>

namespace hvd::preflight {

inline constexpr const char* kNvidiaGpusDir = "/proc/driver/nvidia/gpus";

/// The entries of `dir`; -1 when it does not exist (no NVIDIA driver: nothing to tell).
int count_node_gpus(const std::string& dir = kNvidiaGpusDir);

}  // namespace hvd::preflight
