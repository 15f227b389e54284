// SPDX-License-Identifier: Apache-2.0
// hvd-train: data-parallel MLP training on libhvd. Turns errors into one line on stderr and a
// distinct exit code; the only place that catches.

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/hvd.h"
#include "options.h"
#include "param_verify.h"
#include "trainer.h"

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitData = 3;
constexpr int kExitCommunication = 5;
constexpr int kExitDiverged = 6;
constexpr int kExitInternal = 70;

int exit_code_for(hvd::ErrorCode code) {
  switch (code) {
    case hvd::ErrorCode::kUsage:
      return kExitUsage;
    case hvd::ErrorCode::kConfig:
      return kExitData;
    case hvd::ErrorCode::kInternal:
      return kExitInternal;
    default:
      return kExitCommunication;
  }
}

// BLAS threads per rank: the flag, else OMP_NUM_THREADS (hvdrun sets it to the cores of the
// rank's binding), else this machine's cores shared among the local ranks.
int blas_threads(int flag) {
  if (flag > 0) return flag;
  if (const char* omp = std::getenv(hvd::env::kOmpNumThreads)) {
    if (const int n = std::atoi(omp); n > 0) return n;
  }
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, cores / std::max(1, hvd::local_size()));
}

// The flag wins; else HVD_VERIFY_EVERY (hvdrun --verify-every, or set directly); else never.
int64_t verify_every(int64_t flag) {
  if (flag >= 0) return flag;
  const char* text = std::getenv(hvd::env::kVerifyEvery);
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long long every = std::strtoll(text, &end, 10);
  if (*end != '\0' || every < 0) {
    throw hvd::UsageError(std::string("hvd-train: ") + hvd::env::kVerifyEvery + "='" + text +
                          "' is not a whole number of steps >= 0; fix or unset it");
  }
  return every;
}

// Ends the process without running libhvd's teardown: after a failure the other ranks may be
// gone or stuck, and hvdrun stops them once this rank exits.
[[noreturn]] void fail(const std::string& message, int code) {
  std::cerr << message << std::endl;
  std::cout.flush();
  std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    hvd::train::TrainOptions options = hvd::train::parse_options(argc, argv);
    const hvd::Status init = hvd::init();
    if (!init.ok()) throw hvd::BootstrapError("hvd-train: hvd::init failed: " + init.message());
    options.threads = blas_threads(options.threads);
    options.verify_every = verify_every(options.verify_every);
    if (const char* restarts = std::getenv(hvd::env::kRestartCount)) {
      options.restart_count = std::atoi(restarts);
    }
    hvd::train::Trainer(options).run();
    const hvd::Status done = hvd::shutdown();
    if (!done.ok()) throw hvd::BackendError("hvd-train: hvd::shutdown failed: " + done.message());
    return 0;
  } catch (const hvd::train::DivergedError& e) {
    fail(e.what(), kExitDiverged);
  } catch (const hvd::Error& e) {
    fail(e.what(), exit_code_for(e.code()));
  } catch (const std::exception& e) {
    fail(std::string("hvd-train: internal error: ") + e.what(), kExitInternal);
  }
}
