// SPDX-License-Identifier: Apache-2.0
#pragma once
// What each rank of hvd-preflight finds about itself, as one fixed-size record, so that rank 0
// can collect every rank's with a single allgather of bytes.

#include <cstdint>

namespace hvd::preflight {

inline constexpr int kMaxNics = 16;  // NICs a profile may name; more are cut (and said so)

struct ProbeRecord {
  char host[64] = {};
  char gpu_model[64] = {};
  char gpu_id[32] = {};          // the first visible GPU: PCI bus id ("" for none), see gpu_probe.h
  int32_t rank = 0;
  int32_t visible_gpus = 0;      // from the CUDA runtime when built with it, else the env
  int32_t node_gpus = -1;        // the node's, as the NVIDIA driver lists them; -1: no driver
  uint32_t nics_present = 0;     // bit i: the profile's NIC i exists in /sys/class/net
  int32_t nic_count = 0;
  double clock_offset_ms = 0;    // this rank's wall clock minus rank 0's
  double clock_rtt_ms = 0;       // round trip of the sample that offset came from
  double memory_gbps = 0;        // STREAM triad, this rank alone while its node's ranks run
};

}  // namespace hvd::preflight
