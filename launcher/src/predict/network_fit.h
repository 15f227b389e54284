// SPDX-License-Identifier: Apache-2.0
#pragma once
// A link's latency and bandwidth, fitted to an hvd-bench run: the allreduce times of libhvd
// ("hvd" rows), against the cost of the algorithm it ran at that size (predict/cost_model.h),
// by least squares on the relative error. Only the sizes near the job's own allreduces are
// used when the run has two or more of them: a real link is not one straight line from 8 B to
// 64 MiB (TCP windows, queues, a rate limiter), and the sizes the job never sends must not
// pull the line away from those it does.

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
  double min_bytes = 0;     // the sizes used, smallest and largest
  double max_bytes = 0;
};

/// Sizes within this factor of the job's allreduce size are "near" it.
inline constexpr double kFitSizeFactor = 16;

/// Fits the "allreduce" rows of hvd-bench JSON `bench` (read from `path`, named in errors), those
/// within kFitSizeFactor of `focus_bytes` (the job's allreduce size; 0: all) when two or more
/// are, else all. Throws ConfigError when it is not hvd-bench output, ran on one rank, or has
/// fewer than two allreduce sizes timed for libhvd.
LinkFit fit_link(const nlohmann::json& bench, const std::string& path, double small_bytes,
                 double focus_bytes = 0);

}  // namespace hvd::launcher::predict
