// SPDX-License-Identifier: Apache-2.0
#include "exec/torchelastic_errors.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "files/atomic_file.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "plan/rank_error_file.h"

namespace hvd::launcher::exec {
namespace {

// torch's stand-in for a value it does not have (errors/__init__.py, _NOT_AVAILABLE).
constexpr const char* kNotAvailable = "<N/A>";
// A rank's error file is a message and a traceback; more is not one.
constexpr std::streamsize kMaxRankFileBytes = 16 << 20;

// The rank's file, parsed; null when it is absent, not a regular file, too big or not JSON.
// O_NOFOLLOW: the folder is hvdrun's own (0700), but the rank could have put a link there.
nlohmann::json read_rank_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return nullptr;
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) {
    text.append(buf, static_cast<size_t>(n));
    if (static_cast<std::streamsize>(text.size()) > kMaxRankFileBytes) break;
  }
  ::close(fd);
  if (static_cast<std::streamsize>(text.size()) > kMaxRankFileBytes) return nullptr;
  return nlohmann::json::parse(text, nullptr, false);
}

std::string parent_folder(const std::string& file) {
  const std::filesystem::path parent = std::filesystem::path(file).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

nlohmann::json parent_error_json(const nlohmann::json& rank_error, int exit_code,
                                 const std::string& failure, long long timestamp) {
  if (rank_error.is_object() && rank_error.contains("message")) {
    nlohmann::json out = rank_error;
    // torchrun sets the code only in the object form of "message", and only when it is not 0.
    if (out["message"].is_object() && exit_code != 0) out["message"]["errorCode"] = exit_code;
    return out;
  }
  nlohmann::json extra = {{"py_callstack", kNotAvailable},
                          {"timestamp", std::to_string(timestamp)}};
  nlohmann::json out = nlohmann::json::object();
  out["message"] = {{"message", "ChildFailedError: " + failure}, {"extraInfo", extra}};
  return out;
}

TorchelasticErrors::TorchelasticErrors(const EnvMap& env, plan::Mode mode) {
  const auto it = env.find(env::kTorchElasticErrorFile);
  if (it == env.end() || it->second.empty() || mode == plan::Mode::kMpirun) return;
  user_file_ = it->second;
  std::string tmpl = parent_folder(user_file_) + "/.hvdrun-errors-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    throw ConfigError(str_cat(env::kTorchElasticErrorFile, "=", user_file_,
                              ": cannot make hvdrun's folder for the ranks' error files "
                              "beside it (",
                              std::strerror(errno),
                              "); point it at a file in a folder you can write"));
  }
  rank_dir_ = tmpl;
}

TorchelasticErrors::~TorchelasticErrors() {
  if (rank_dir_.empty()) return;
  std::error_code ignored;  // a leftover folder is untidy, not a reason to fail the job
  std::filesystem::remove_all(rank_dir_, ignored);
}

void TorchelasticErrors::finish(const RunOutcome& outcome, int attempt) const {
  if (user_file_.empty() || outcome.failed.empty()) return;
  const nlohmann::json rank_error =
      outcome.failed_rank >= 0
          ? read_rank_file(plan::rank_error_file(rank_dir_, attempt, outcome.failed_rank))
          : nlohmann::json();
  const std::string failure =
      str_cat(outcome.failure, "; it wrote no error file (decorate its main function with "
                               "torch.distributed.elastic.multiprocessing.errors.record for the "
                               "traceback)");
  const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  const nlohmann::json out = parent_error_json(rank_error, outcome.exit_code, failure, now);
  files::write_file_atomically(user_file_, out.dump(-1, ' ', false,
                                                    nlohmann::json::error_handler_t::replace));
}

}  // namespace hvd::launcher::exec
