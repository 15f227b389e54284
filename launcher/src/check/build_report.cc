// SPDX-License-Identifier: Apache-2.0
#include "check/build_report.h"

#include <dlfcn.h>

#include <algorithm>
#include <sstream>

#include "check/slurm_probe.h"
#include "config/data_dirs.h"
#include "hvd/build_config.h"
#include "hvd/error.h"

namespace hvd::launcher::check {
namespace {

// dlopen says whether the library and its dependencies load here; the handle is released at
// once because nothing is called.
std::string try_load(const std::string& library) {
  if (library.empty()) return "no library recorded";
  void* handle = dlopen(library.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return why != nullptr ? why : "dlopen failed";
  }
  dlclose(handle);
  return {};
}

Feature library_feature(const std::string& name, bool built, const std::string& library,
                        const std::string& version) {
  Feature f{name, built, false, ""};
  if (!built) {
    f.detail = "not built in";
    return f;
  }
  const std::string error = try_load(library);
  f.loadable = error.empty();
  f.detail = f.loadable ? version : "built in, but cannot load: " + error;
  return f;
}

// The built-in ring needs no library: built in means usable.
Feature ring_feature(const std::string& name, const std::string& detail) {
  const bool built = HVD_HAVE_RING != 0;
  return Feature{name, built, built, built ? detail : "not built in"};
}

// libhvd's GPU backend (NCCL for CUDA tensors) is built when CUDA and NCCL both are. Their
// libraries load on any machine; running them needs the NVIDIA driver too.
Feature gpu_feature(const std::string& name, bool found, const std::string& library,
                    const std::string& version) {
  if (found && HVD_HAVE_GPU_BACKEND == 0) {
    // CUDA without NCCL (NCCL is only looked for with CUDA): no GPU backend to offer.
    return Feature{name, false, false,
                   str_cat(name, " ", version,
                           " found, but libhvd's GPU backend needs NCCL too (-DHVD_WITH_NCCL=ON)")};
  }
  Feature f = library_feature(name, found, library, version);
  if (f.available()) {
    const std::string driver = try_load("libcuda.so.1");
    f.loadable = driver.empty();
    if (!f.loadable) f.detail = "built in, but no NVIDIA driver: " + driver;
  }
  return f;
}

// hvdrun.torch: built in, and its package is where the ranks' PYTHONPATH will point.
Feature torch_feature() {
  if (HVD_HAVE_TORCH == 0) return Feature{"PyTorch", false, false, "not built in"};
  const std::vector<std::string> dirs = config::python_dirs(false);
  if (dirs.empty()) {
    return Feature{"PyTorch", true, false,
                   "built in, but the hvdrun Python package is missing beside this hvdrun"};
  }
  return Feature{"PyTorch", true, true,
                 str_cat("torch ", HVD_TORCH_VERSION, ", hvdrun.torch in ", dirs.front())};
}

// The catalog lists the embedded profile last, where it loses to a local.yaml; the report
// has always shown it first.
std::vector<profile::ProfileEntry> embedded_first(std::vector<profile::ProfileEntry> all) {
  std::stable_partition(all.begin(), all.end(),
                        [](const profile::ProfileEntry& e) { return e.path.empty(); });
  return all;
}

// One line per profile: a multi-line error is folded onto it.
std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

void print_section(std::ostringstream& out, const std::string& title,
                   const std::vector<Feature>& features) {
  out << title << ":\n";
  for (const Feature& f : features) {
    out << "    [" << (f.available() ? 'X' : ' ') << "] " << f.name;
    if (!f.detail.empty()) out << " (" << f.detail << ")";
    out << "\n";
  }
  out << "\n";
}

}  // namespace

BuildReport gather_build_report(const EnvMap& env) {
  BuildReport r;
  r.version = HVD_VERSION;
  // horovodrun lists its three frameworks; hvdrun has the PyTorch API only.
  r.frameworks = {
      Feature{"TensorFlow", false, false, "not built in"},
      torch_feature(),
      Feature{"MXNet", false, false, "not built in"},
  };
  r.controllers = {
      library_feature("MPI", HVD_HAVE_MPI != 0, HVD_MPI_LIBRARY, HVD_MPI_VERSION),
      library_feature("PMIx", HVD_HAVE_PMIX != 0, HVD_PMIX_LIBRARY, ""),
      ring_feature("TCP", "hvdrun's rendezvous store + TCP/shared-memory control channel"),
  };
  r.tensor_operations = {
      gpu_feature("NCCL", HVD_HAVE_NCCL != 0, HVD_NCCL_LIBRARY, HVD_NCCL_VERSION),
      library_feature("MPI", HVD_HAVE_MPI != 0, HVD_MPI_LIBRARY, HVD_MPI_VERSION),
      ring_feature("Built-in ring", "shared memory within a host, TCP across hosts"),
      gpu_feature("CUDA", HVD_HAVE_CUDA != 0, HVD_CUDART_LIBRARY, HVD_CUDA_VERSION),
  };
  const SrunInfo srun = probe_srun(env);
  const std::string srun_text =
      srun.path.empty() ? "srun not found in PATH"
                        : "srun " + (srun.version.empty() ? "version unknown" : srun.version) +
                              " at " + srun.path;
  r.launchers = {
      Feature{"local", true, true, ""},
      // Always built in; usable where srun is.
      Feature{"Slurm", true, !srun.path.empty(), srun_text},
  };
  r.profiles = embedded_first(profile::list_profiles(env));
  return r;
}

std::string format_text(const BuildReport& r) {
  std::ostringstream out;
  out << "hvdrun v" << r.version << ":\n\n";
  print_section(out, "Available Frameworks", r.frameworks);
  print_section(out, "Available Controllers", r.controllers);
  print_section(out, "Available Tensor Operations", r.tensor_operations);
  print_section(out, "Launchers", r.launchers);
  out << "Site profiles found:\n";
  for (const profile::ProfileEntry& p : r.profiles) {
    out << "    " << p.name << " (" << (p.path.empty() ? "embedded" : p.path) << ")";
    if (!p.shadowed_by.empty()) out << " [shadowed by " << p.shadowed_by << "]";
    if (!p.error.empty()) out << " [INVALID: " << one_line(p.error) << "]";
    out << "\n";
  }
  return out.str();
}

nlohmann::json to_json(const BuildReport& r) {
  auto section = [](const std::vector<Feature>& features) {
    nlohmann::json list = nlohmann::json::array();
    for (const Feature& f : features) {
      list.push_back({{"name", f.name}, {"available", f.available()}, {"built", f.built},
                      {"loadable", f.loadable}, {"detail", f.detail}});
    }
    return list;
  };
  const auto or_null = [](const std::string& s) {
    return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
  };
  nlohmann::json profiles = nlohmann::json::array();
  for (const profile::ProfileEntry& p : r.profiles) {
    profiles.push_back({{"name", p.name},
                        {"path", or_null(p.path)},
                        {"shadowed_by", or_null(p.shadowed_by)},
                        {"error", or_null(p.error)}});
  }
  return {{"version", r.version},
          {"frameworks", section(r.frameworks)},
          {"controllers", section(r.controllers)},
          {"tensor_operations", section(r.tensor_operations)},
          {"launchers", section(r.launchers)},
          {"site_profiles", profiles}};
}

}  // namespace hvd::launcher::check
