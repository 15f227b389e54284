// SPDX-License-Identifier: Apache-2.0
#pragma once
// What hvd-train reports: throughput in the lines of Horovod's pytorch_synthetic_benchmark.py
// (which ReFrame's hpctestlib parses), per-epoch loss and accuracy, the scaling efficiency
// against a one-rank baseline, and the same as JSON.

#include <string>
#include <vector>

namespace hvd::train {

struct EpochResult {
  int epoch = 0;
  double loss = 0;
  double train_accuracy = 0;
  double test_accuracy = -1;  // < 0: not evaluated
};

/// Mean and Horovod's confidence (1.96 x the population standard deviation) of img/sec over
/// the timed iterations.
struct Throughput {
  double mean = 0;
  double ci = 0;
};
Throughput summarize(const std::vector<double>& img_per_sec);

struct RunReport {
  int ranks = 1;
  bool gpu = false;
  std::vector<int> widths;
  size_t parameters = 0;
  int batch_per_rank = 0;
  bool synthetic = false;
  Throughput per_rank;
  double baseline = 0;          // one rank's img/sec; 0 when not given
  double cpu_ms_per_image = 0;  // rank 0's process CPU time per timed image; 0 if unmeasured
  std::vector<EpochResult> epochs;

  const char* device_word() const { return gpu ? "GPU" : "CPU"; }
  /// Total img/sec over (ranks x baseline); < 0 without a baseline.
  double scaling_efficiency() const;
};

/// "Iter #k: X img/sec per CPU".
std::string iteration_line(int iteration, double img_per_sec, const RunReport& r);
/// "Img/sec per CPU: X +-Y", "Total img/sec on N CPU(s): X +-Y", and the efficiency line.
std::vector<std::string> summary_lines(const RunReport& r);
std::string epoch_line(const EpochResult& e);
/// The shared hvd-train JSON format (helper-notes/common.md). Throws ConfigError on I/O error.
void write_json(const std::string& path, const RunReport& r);

}  // namespace hvd::train
