// SPDX-License-Identifier: Apache-2.0
#pragma once
// A link's latency and bandwidth, fitted to an hvd-bench run: the allreduce times of libhvd
// ("hvd" rows) at every size, against the cost of the algorithm it ran at that size
// (predict/cost_model.h), by least squares on the relative error.

#include <string>

#include <nlohmann/json.hpp>

#include "predict/cost_model.h"

namespace hvd::launcher::predict {

struct LinkFit {
  Link link;
  int ranks = 0;            // of the hvd-bench run
  int hosts = 0;
  std::string backend;      // "ring/shm", "ring/tcp", ...
  int rows = 0;             // sizes used
  double worst_error = 0;   // largest |model - measured| / measured over those rows
};

/// Fits the "allreduce" rows of hvd-bench JSON `bench` (read from `path`, named in errors).
/// Throws ConfigError when it is not hvd-bench output, ran on one rank, or has fewer than two
/// allreduce sizes timed for libhvd.
LinkFit fit_link(const nlohmann::json& bench, const std::string& path, double small_bytes);

}  // namespace hvd::launcher::predict
