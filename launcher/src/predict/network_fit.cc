// SPDX-License-Identifier: Apache-2.0
#include "predict/network_fit.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "util/json_fields.h"

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

// libhvd's allreduce times ("hvd" cells) of hvd-bench JSON, one per size it timed.
std::vector<Row> hvd_allreduce_rows(const util::JsonField& doc) {
  std::vector<Row> rows;
  for (const util::JsonField& op : doc.at("results").elements(10000)) {
    if (op.at("op").text() != "allreduce") continue;
    for (const util::JsonField& row : op.at("rows").elements(100000)) {
      if (!row.has("impls")) continue;
      const util::JsonField impls = row.at("impls");
      if (!impls.has("hvd")) continue;
      const util::JsonField hvd = impls.at("hvd");
      if (!hvd.has("time_us")) continue;  // a size libhvd did not time (null)
      const double t = hvd.at("time_us").number(1e-6, 1e12);
      rows.push_back({row.at("bytes").number(1, 1e15), t});
    }
  }
  return rows;
}

}  // namespace

LinkFit fit_link(const nlohmann::json& bench, const std::string& path, double small_bytes,
                 double focus_bytes) {
  const util::JsonField doc(path, bench);
  // A "tool" of the wrong type is named as a field; a missing one says what file this is not.
  if (!bench.is_object() || !bench.contains("tool") || doc.at("tool").text() != "hvd-bench") {
    throw ConfigError(str_cat(path, ": not hvd-bench JSON (no \"tool\": \"hvd-bench\")"));
  }
  LinkFit fit;
  fit.ranks = static_cast<int>(doc.at("ranks").whole(0, 1000000));
  fit.hosts = static_cast<int>(doc.whole_or("hosts", 1, 1, 1000000));
  fit.backend = doc.text_or("backend", "");
  if (fit.ranks < 2) {
    throw ConfigError(str_cat(path, ": an hvd-bench run of ", fit.ranks,
                              " rank(s) measures no link; run it with -np 2 or more"));
  }
  std::vector<Row> rows = hvd_allreduce_rows(doc);
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
