// SPDX-License-Identifier: Apache-2.0
#include "report.h"

#include <cmath>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "files/atomic_file.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::train {
namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), fmt, a, b, c);
  return buf;
}

}  // namespace

Throughput summarize(const std::vector<double>& img_per_sec) {
  Throughput t;
  if (img_per_sec.empty()) return t;
  for (double v : img_per_sec) t.mean += v;
  t.mean /= static_cast<double>(img_per_sec.size());
  double var = 0;
  for (double v : img_per_sec) var += (v - t.mean) * (v - t.mean);
  // numpy's np.std, as Horovod uses it: the population deviation (ddof = 0).
  t.ci = 1.96 * std::sqrt(var / static_cast<double>(img_per_sec.size()));
  return t;
}

double RunReport::scaling_efficiency() const {
  if (baseline <= 0) return -1;
  return per_rank.mean * ranks / (ranks * baseline);
}

std::string iteration_line(int iteration, double img_per_sec, const RunReport& r) {
  return str_cat("Iter #", iteration, ": ", format("%.1f", img_per_sec), " img/sec per ",
                 r.device_word());
}

std::vector<std::string> summary_lines(const RunReport& r) {
  std::vector<std::string> lines;
  lines.push_back(str_cat("Img/sec per ", r.device_word(), ": ",
                          format("%.1f +-%.1f", r.per_rank.mean, r.per_rank.ci)));
  lines.push_back(
      str_cat("Total img/sec on ", r.ranks, " ", r.device_word(),
              "(s): ", format("%.1f +-%.1f", r.ranks * r.per_rank.mean, r.ranks * r.per_rank.ci)));
  if (r.cpu_ms_per_image > 0) {
    lines.push_back(str_cat("CPU time per image: ", format("%.3f", r.cpu_ms_per_image),
                            " ms (rank 0, all threads)"));
  }
  if (r.baseline > 0) {
    lines.push_back(str_cat("Scaling efficiency vs 1 ", r.device_word(), " (",
                            format("%.1f", r.baseline),
                            " img/sec): ", format("%.3f", r.scaling_efficiency())));
  }
  return lines;
}

std::string epoch_line(const EpochResult& e) {
  std::string line = str_cat("Epoch ", e.epoch, ": loss ", format("%.4f", e.loss),
                             ", train accuracy ", format("%.4f", e.train_accuracy));
  if (e.test_accuracy >= 0) line += str_cat(", test accuracy ", format("%.4f", e.test_accuracy));
  return line;
}

void write_json(const std::string& path, const RunReport& r) {
  nlohmann::json epochs = nlohmann::json::array();
  for (const EpochResult& e : r.epochs) {
    epochs.push_back({{"epoch", e.epoch},
                      {"loss", e.loss},
                      {"train_accuracy", e.train_accuracy},
                      {"test_accuracy", e.test_accuracy >= 0 ? nlohmann::json(e.test_accuracy)
                                                             : nlohmann::json(nullptr)}});
  }
  const nlohmann::json j = {
      {"tool", "hvd-train"},
      {"ranks", r.ranks},
      {"device", r.gpu ? "gpu" : "cpu"},
      {"parameters", r.parameters},
      {"layers", r.widths},
      {"batch_per_rank", r.batch_per_rank},
      {"synthetic", r.synthetic},
      {"img_per_sec_per_rank", {{"mean", r.per_rank.mean}, {"ci", r.per_rank.ci}}},
      {"img_per_sec_total", {{"mean", r.ranks * r.per_rank.mean}, {"ci", r.ranks * r.per_rank.ci}}},
      {"scaling_efficiency",
       r.baseline > 0 ? nlohmann::json(r.scaling_efficiency()) : nlohmann::json(nullptr)},
      {"cpu_ms_per_image", r.cpu_ms_per_image},
      {"epochs", epochs}};
  // Whole or not at all, and never through a planted symlink.
  files::write_file_atomically(path, j.dump(2) + "\n");
}

}  // namespace hvd::train
