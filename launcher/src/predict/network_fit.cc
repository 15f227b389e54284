// SPDX-License-Identifier: Apache-2.0
#include "predict/network_fit.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "hvd/error.h"

namespace hvd::launcher::predict {
namespace {

struct Row {
  double bytes;
  double time_us;
};

// allreduce_us() is a * latency + b * (us per byte) for a row: the coefficients.
std::pair<double, double> coefficients(double bytes, int ranks, double small_bytes) {
  const Link unit_latency{1, 1e300};  // bandwidth term ~ 0
  const Link unit_per_byte{0, 1e-3};  // 1 us per byte
  return {allreduce_us(bytes, ranks, unit_latency, small_bytes),
          allreduce_us(bytes, ranks, unit_per_byte, small_bytes)};
}

// The rows within kFitSizeFactor of focus_bytes, when there are two or more; else all.
std::vector<Row> near(const std::vector<Row>& rows, double focus_bytes) {
  if (focus_bytes <= 0) return rows;
  std::vector<Row> kept;
  for (const Row& r : rows) {
    if (r.bytes >= focus_bytes / kFitSizeFactor && r.bytes <= focus_bytes * kFitSizeFactor) {
      kept.push_back(r);
    }
  }
  return kept.size() >= 2 ? kept : rows;
}

}  // namespace

LinkFit fit_link(const nlohmann::json& bench, const std::string& path, double small_bytes,
                 double focus_bytes) {
  if (!bench.is_object() || bench.value("tool", "") != "hvd-bench") {
    throw ConfigError(str_cat(path, ": not hvd-bench JSON (no \"tool\": \"hvd-bench\")"));
  }
  LinkFit fit;
  try {
    fit.ranks = bench.value("ranks", 0);
    fit.hosts = bench.value("hosts", 1);
    fit.backend = bench.value("backend", "");
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(str_cat(path, ": ", e.what()));
  }
  if (fit.ranks < 2) {
    throw ConfigError(str_cat(path, ": an hvd-bench run of ", fit.ranks,
                              " rank(s) measures no link; run it with -np 2 or more"));
  }
  std::vector<Row> rows;
  for (const auto& op : bench.value("results", nlohmann::json::array())) {
    if (op.value("op", "") != "allreduce") continue;
    for (const auto& row : op.value("rows", nlohmann::json::array())) {
      const auto impls = row.value("impls", nlohmann::json::object());
      if (!impls.contains("hvd") || !impls["hvd"].contains("time_us")) continue;
      if (!impls["hvd"]["time_us"].is_number() || !row.value("bytes", nlohmann::json()).is_number()) {
        continue;  // a size libhvd did not time (null), or not a number
      }
      const double t = impls["hvd"]["time_us"].get<double>();
      const double bytes = row["bytes"].get<double>();
      if (std::isfinite(t) && t > 0 && std::isfinite(bytes) && bytes > 0) rows.push_back({bytes, t});
    }
  }
  if (rows.size() < 2) {
    throw ConfigError(str_cat(path, ": needs libhvd allreduce times at two sizes or more, has ",
                              rows.size()));
  }
  rows = near(rows, focus_bytes);
  // Weighted least squares, weights 1/t^2: each size counts by its relative error.
  double saa = 0, sab = 0, sbb = 0, sat = 0, sbt = 0;
  for (const Row& r : rows) {
    const auto [a, b] = coefficients(r.bytes, fit.ranks, small_bytes);
    const double w = 1 / (r.time_us * r.time_us);
    saa += w * a * a;
    sab += w * a * b;
    sbb += w * b * b;
    sat += w * a * r.time_us;
    sbt += w * b * r.time_us;
  }
  const double det = saa * sbb - sab * sab;
  double latency = det != 0 ? (sat * sbb - sbt * sab) / det : 0;
  double per_byte = det != 0 ? (saa * sbt - sab * sat) / det : 0;
  if (latency < 0 || per_byte <= 0) {  // noise: refit with the term that went wrong fixed
    latency = std::max(0.0, latency);
    per_byte = sbb > 0 ? std::max(1e-12, (sbt - sab * latency) / sbb) : 1e-12;
  }
  fit.link = {latency, 1e-3 / per_byte};
  fit.rows = static_cast<int>(rows.size());
  const auto [smallest, largest] = std::minmax_element(
      rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.bytes < b.bytes; });
  fit.min_bytes = smallest->bytes;
  fit.max_bytes = largest->bytes;
  for (const Row& r : rows) {
    const double model = allreduce_us(r.bytes, fit.ranks, fit.link, small_bytes);
    fit.worst_error = std::max(fit.worst_error, std::abs(model - r.time_us) / r.time_us);
  }
  return fit;
}

}  // namespace hvd::launcher::predict
