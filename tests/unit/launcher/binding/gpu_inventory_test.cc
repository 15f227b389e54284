// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "binding/gpu_inventory.h"

namespace binding = hvd::launcher::binding;
namespace fs = std::filesystem;
using binding::EnvMap;
using binding::Gpu;

namespace {

std::vector<std::string> ids(const std::vector<Gpu>& gpus) {
  std::vector<std::string> out;
  out.reserve(gpus.size());
  for (const Gpu& gpu : gpus) out.push_back(gpu.id);
  return out;
}

// A fresh directory that stands in for /dev, removed at scope exit.
class TempDevDir {
 public:
  TempDevDir() {
    std::string pattern = (fs::temp_directory_path() / "hvd_gpu_inventory_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDevDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDevDir(const TempDevDir&) = delete;
  TempDevDir& operator=(const TempDevDir&) = delete;

  void add_file(const std::string& name) const { std::ofstream(path_ / name) << ""; }
  void add_dir(const std::string& name) const { fs::create_directory(path_ / name); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

}  // namespace

TEST_CASE("gpu_inventory: CUDA_VISIBLE_DEVICES decides when set") {
  CHECK(ids(binding::find_gpus({{"CUDA_VISIBLE_DEVICES", "0,1"}})) ==
        std::vector<std::string>{"0", "1"});
  CHECK(ids(binding::find_gpus({{"CUDA_VISIBLE_DEVICES", "3,1"}})) ==
        std::vector<std::string>{"3", "1"});
  CHECK(ids(binding::find_gpus({{"CUDA_VISIBLE_DEVICES", "GPU-8a2c,GPU-91fe"}})) ==
        std::vector<std::string>{"GPU-8a2c", "GPU-91fe"});
  CHECK(ids(binding::find_gpus({{"CUDA_VISIBLE_DEVICES", "MIG-5f0e"}})) ==
        std::vector<std::string>{"MIG-5f0e"});
  CHECK(ids(binding::find_gpus({{"CUDA_VISIBLE_DEVICES", " 2 , 3 ,"}})) ==
        std::vector<std::string>{"2", "3"});
  for (const std::string none : {"", " ", "-1", "NoDevFiles"}) {
    CAPTURE(none);
    CHECK(binding::find_gpus({{"CUDA_VISIBLE_DEVICES", none}}).empty());
  }
  for (const Gpu& gpu : binding::find_gpus({{"CUDA_VISIBLE_DEVICES", "0,1"}})) {
    CHECK(gpu.numa == -1);
  }
}

TEST_CASE("gpu_inventory: without CUDA_VISIBLE_DEVICES, counts nvidia<N> in the device dir") {
  const TempDevDir dev;
  for (const char* name : {"nvidia0", "nvidia1", "nvidia2", "nvidia10", "nvidiactl", "nvidia-uvm",
                           "nvidia-uvm-tools", "nvidia-modeset", "nvidiaX", "null"}) {
    dev.add_file(name);
  }
  dev.add_dir("nvidia-caps");
  dev.add_dir("nvidia11");  // not a device

  const EnvMap env = {{"PATH", "/usr/bin"}};
  CHECK(ids(binding::find_gpus(env, dev.path())) == std::vector<std::string>{"0", "1", "2", "3"});

  SUBCASE("CUDA_VISIBLE_DEVICES overrides the device files") {
    CHECK(ids(binding::find_gpus({{"CUDA_VISIBLE_DEVICES", "1"}}, dev.path())) ==
          std::vector<std::string>{"1"});
    CHECK(binding::find_gpus({{"CUDA_VISIBLE_DEVICES", "-1"}}, dev.path()).empty());
  }
}

TEST_CASE("gpu_inventory: no device files or no dir means no GPUs") {
  const TempDevDir dev;
  dev.add_file("nvidiactl");
  CHECK(binding::find_gpus(EnvMap{}, dev.path()).empty());
  CHECK(binding::find_gpus(EnvMap{}, dev.path() + "/missing").empty());
  CHECK_NOTHROW(binding::find_gpus(EnvMap{}));  // the real /dev, whatever it holds
}

TEST_CASE("gpu_inventory: numa_domain_of maps a locality cpuset to one domain") {
  // 2 domains x 2 cores, SMT2: core k has PUs k and k+4.
  binding::CpuTopology topo;
  topo.numa_count = 2;
  for (int k = 0; k < 4; ++k) topo.cores.push_back({k, {k, k + 4}, k / 2});

  CHECK(binding::numa_domain_of(topo, {0, 1, 4, 5}) == 0);
  CHECK(binding::numa_domain_of(topo, {2, 3, 6, 7}) == 1);
  CHECK(binding::numa_domain_of(topo, {7}) == 1);
  CHECK(binding::numa_domain_of(topo, {1, 2}) == -1);         // spans both
  CHECK(binding::numa_domain_of(topo, {}) == -1);             // no locality known
  CHECK(binding::numa_domain_of(topo, {40, 41}) == -1);       // outside our cpuset
  CHECK(binding::numa_domain_of(topo, {2, 3, 40, 41}) == 1);  // the part we may use
}

TEST_CASE("gpu_inventory: fill_gpu_numa on this machine") {
  std::vector<Gpu> none;
  binding::fill_gpu_numa(none);
  CHECK(none.empty());

  // Ids that are not PCI positions, or beyond any machine's GPUs, stay unknown; a real GPU
  // machine may know the domain of "0".
  std::vector<Gpu> gpus = {{"0", -1}, {"GPU-8a2c", -1}, {"4095", -1}, {"99999999999999", -1}};
  const binding::CpuTopology topo = binding::load_cpu_topology();
  binding::fill_gpu_numa(gpus);
  CHECK(gpus[0].numa >= -1);
  CHECK(gpus[0].numa < topo.numa_count);
  CHECK(gpus[1].numa == -1);
  CHECK(gpus[2].numa == -1);
  CHECK(gpus[3].numa == -1);
}
