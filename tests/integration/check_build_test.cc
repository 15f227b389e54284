// SPDX-License-Identifier: Apache-2.0
// hvdrun --check-build: horovodrun's layout, and the same facts as JSON.

#include <doctest/doctest.h>

#include "hvd/build_config.h"
#include "integration/hvdrun_test_util.h"

using namespace hvd::test;
using nlohmann::json;

namespace {
bool has_line(const std::string& text, const std::string& line) {
  for (const std::string& l : split_lines(text)) {
    if (l.rfind(line, 0) == 0) return true;
  }
  return false;
}
}  // namespace

TEST_CASE("check-build text follows horovodrun's layout") {
  const ProcessResult r = run(hvdrun({"--check-build"}));
  REQUIRE(r.exit_code == 0);
  const auto lines = split_lines(r.out);
  REQUIRE(lines.size() > 10);
  CHECK(lines[0] == std::string("hvdrun v") + HVD_VERSION + ":");
  CHECK(lines[1].empty());
  CHECK(lines[2] == "Available Frameworks:");
  // The order of sections is fixed.
  const auto at = [&](const std::string& s) { return r.out.find(s); };
  CHECK(at("Available Frameworks:") < at("Available Controllers:"));
  CHECK(at("Available Controllers:") < at("Available Tensor Operations:"));
  CHECK(at("Available Tensor Operations:") < at("Launchers:"));
  CHECK(at("Launchers:") < at("Site profiles found:"));
  CHECK(has_line(r.out, std::string("    [") + (HVD_HAVE_MPI ? "X" : " ") + "] MPI"));
  CHECK(has_line(r.out, std::string("    [") + (HVD_HAVE_PMIX ? "X" : " ") + "] PMIx"));
  // NCCL, libhvd's backend for CUDA tensors: built in exactly when the GPU backend is, and
  // available only where the NVIDIA driver loads.
  if (HVD_HAVE_GPU_BACKEND) {
    CHECK((has_line(r.out, "    [X] NCCL (" HVD_NCCL_VERSION ")") ||
           has_line(r.out, "    [ ] NCCL (built in, but no NVIDIA driver: ")));
  } else {
    CHECK(has_line(r.out, "    [ ] NCCL (not built in)"));
  }
  // PyTorch: hvdrun.torch, with the torch it was compiled against; the other two of
  // horovodrun's frameworks are listed, never built.
  if (HVD_HAVE_TORCH) {
    CHECK(has_line(r.out, "    [X] PyTorch (torch " HVD_TORCH_VERSION ", hvdrun.torch in "));
  } else {
    CHECK(has_line(r.out, "    [ ] PyTorch (not built in)"));
  }
  CHECK(has_line(r.out, "    [ ] TensorFlow (not built in)"));
  CHECK(has_line(r.out, "    [ ] MXNet (not built in)"));
  CHECK(has_line(r.out, "    [X] local"));
  // Slurm: [X] exactly when srun is in PATH, with its version.
  const ProcessResult no_srun = run(hvdrun({"--check-build"}), {{"PATH", "/nonexistent"}});
  CHECK(has_line(no_srun.out, "    [ ] Slurm (srun not found in PATH)"));
  if (run({"/bin/sh", "-c", "command -v srun"}).exit_code == 0) {
    CHECK(has_line(r.out, "    [X] Slurm (srun "));
  }
  CHECK(has_line(r.out, "    local (embedded)"));
  const ProcessResult alias = run(hvdrun({"-cb"}));
  CHECK(alias.out == r.out);
}

TEST_CASE("check-build --json gives the same facts") {
  const ProcessResult text = run(hvdrun({"--check-build"}));
  const ProcessResult r = run(hvdrun({"--check-build", "--json"}));
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j.at("version") == HVD_VERSION);
  for (const char* section : {"frameworks", "controllers", "tensor_operations", "launchers"}) {
    REQUIRE(!j.at(section).empty());
    for (const json& f : j.at(section)) {
      const std::string mark = f.at("available").get<bool>() ? "[X] " : "[ ] ";
      CHECK_MESSAGE(text.out.find(mark + f.at("name").get<std::string>()) != std::string::npos,
                    f.dump());
    }
  }
  CHECK(j.at("site_profiles").at(0).at("name") == "local");
  bool nccl_listed = false;
  for (const json& f : j.at("tensor_operations")) {
    if (f.at("name") != "NCCL") continue;
    nccl_listed = true;
    CHECK(f.at("built").get<bool>() == (HVD_HAVE_GPU_BACKEND != 0));
  }
  CHECK(nccl_listed);
}
