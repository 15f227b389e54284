// SPDX-License-Identifier: Apache-2.0
#include "predict/train_input.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ios>

#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "util/json_fields.h"

namespace hvd::launcher::predict {

nlohmann::json read_json(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {  // reading one throws a bare ios failure
    throw ConfigError(str_cat(path, ": is a directory, not a --json file"));
  }
  std::ifstream in(path);
  if (!in) throw ConfigError(str_cat(path, ": cannot read it: ", std::strerror(errno)));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e999
    throw ConfigError(str_cat(path, ": not JSON: ", e.what()));
  } catch (const std::ios_base::failure& e) {
    throw ConfigError(str_cat(path, ": cannot read it: ", e.what()));
  }
}

Workload workload_from_train(const nlohmann::json& train, const std::string& path) {
  const util::JsonField doc(path, train);
  // A "tool" of the wrong type is named as a field; a missing one says what file this is not.
  if (!train.is_object() || !train.contains("tool") || doc.at("tool").text() != "hvd-train") {
    throw ConfigError(str_cat(path, ": not hvd-train JSON (no \"tool\": \"hvd-train\")"));
  }
  const int64_t ranks = doc.at("ranks").whole(1, 1000000);
  if (ranks != 1) {
    throw ConfigError(str_cat(path, ": a run of ", ranks,
                              " ranks; predict starts from a 1-rank run (hvdrun -np 1)"));
  }
  Workload w;
  w.batch_per_rank = static_cast<int>(doc.at("batch_per_rank").whole(1, 1000000000));
  const double per_sec = doc.at("img_per_sec_per_rank").at("mean").number(1e-9, 1e12);
  const double parameters = doc.at("parameters").number(1, 1e15);
  // hvd-train's MLP: one weight matrix and one bias per pair of adjacent layer widths.
  const std::vector<util::JsonField> layers = doc.at("layers").elements(1000000);
  if (layers.size() < 2) doc.at("layers").fail("an array of at least 2 layer widths");
  for (const util::JsonField& width : layers) width.whole(1, 1000000000);
  w.compute_ms = 1e3 * w.batch_per_rank / per_sec;
  w.gradient_bytes = 4.0 * parameters;  // float32 gradients
  w.tensors = 2 * static_cast<int>(layers.size() - 1);
  return w;
}

}  // namespace hvd::launcher::predict
