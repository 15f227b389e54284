// SPDX-License-Identifier: Apache-2.0
#include "binding/gpu_inventory.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include <hwloc.h>

#include "binding/hwloc_failure.h"
#include "hvd/error.h"
#include "util/text.h"

namespace hvd::launcher::binding {
namespace {

using util::trim;

using TopologyPtr = std::unique_ptr<hwloc_topology, decltype(&hwloc_topology_destroy)>;

constexpr unsigned short kNvidiaVendor = 0x10de;
constexpr unsigned short kVgaClass = 0x0300;
constexpr unsigned short k3dControllerClass = 0x0302;  // data-centre GPUs (A100, H100)

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<Gpu> parse_visible_devices(std::string_view value) {
  std::vector<Gpu> gpus;
  value = trim(value);
  if (value.empty() || value == "-1" || value == "NoDevFiles") return gpus;
  size_t start = 0;
  while (start <= value.size()) {
    const size_t comma = std::min(value.find(',', start), value.size());
    const std::string_view token = trim(value.substr(start, comma - start));
    if (!token.empty()) gpus.push_back(Gpu{std::string(token), -1});
    start = comma + 1;
  }
  return gpus;
}

int count_device_files(const std::string& dev_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  int count = 0;
  for (fs::directory_iterator it(dev_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("nvidia", 0) != 0 || !all_digits(std::string_view(name).substr(6))) continue;
    std::error_code status_ec;
    const fs::file_status status = it->status(status_ec);
    if (fs::is_character_file(status) || fs::is_regular_file(status)) ++count;
  }
  return count;
}

TopologyPtr load_with_pci() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw_hwloc_failure("topology init");
  TopologyPtr topo(raw, &hwloc_topology_destroy);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  // OS devices would make hwloc's CUDA/NVML/OpenCL plugins initialise the GPU driver (slow, and
  // it opens contexts); the PCI devices alone say where each GPU is.
  hwloc_topology_set_type_filter(raw, HWLOC_OBJ_OS_DEVICE, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_cache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(raw) != 0) throw_hwloc_failure("topology load (with PCI devices)");
  return topo;
}

struct PciGpu {
  std::tuple<unsigned, unsigned, unsigned, unsigned> bus_id;  // domain, bus, device, function
  std::vector<int> locality;  // OS indices of the CPUs hwloc places the device next to
};

// NVIDIA GPUs in PCI bus-id order, the order CUDA_DEVICE_ORDER=PCI_BUS_ID gives them.
std::vector<PciGpu> nvidia_pci_gpus(hwloc_topology_t topo) {
  std::vector<PciGpu> found;
  for (hwloc_obj_t obj = hwloc_get_next_pcidev(topo, nullptr); obj != nullptr;
       obj = hwloc_get_next_pcidev(topo, obj)) {
    const auto& pci = obj->attr->pcidev;
    if (pci.vendor_id != kNvidiaVendor) continue;
    if (pci.class_id != kVgaClass && pci.class_id != k3dControllerClass) continue;
    PciGpu gpu;
    gpu.bus_id = {pci.domain, pci.bus, pci.dev, pci.func};
    const hwloc_obj_t parent = hwloc_get_non_io_ancestor_obj(topo, obj);
    if (parent != nullptr && parent->cpuset != nullptr) {
      for (int pu = hwloc_bitmap_first(parent->cpuset); pu != -1;
           pu = hwloc_bitmap_next(parent->cpuset, pu)) {
        gpu.locality.push_back(pu);
      }
    }
    found.push_back(std::move(gpu));
  }
  std::sort(found.begin(), found.end(),
            [](const PciGpu& a, const PciGpu& b) { return a.bus_id < b.bus_id; });
  return found;
}

}  // namespace

std::vector<Gpu> find_gpus(const EnvMap& env, const std::string& dev_dir) {
  const auto visible = env.find("CUDA_VISIBLE_DEVICES");
  if (visible != env.end()) return parse_visible_devices(visible->second);
  const int count = count_device_files(dev_dir);
  std::vector<Gpu> gpus;
  gpus.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) gpus.push_back(Gpu{std::to_string(i), -1});
  return gpus;
}

int numa_domain_of(const CpuTopology& topo, const std::vector<int>& cpus) {
  std::unordered_map<int, int> domain_of_pu;
  for (const Core& core : topo.cores) {
    for (int pu : core.pus) domain_of_pu[pu] = core.numa;
  }
  int domain = -1;
  for (int cpu : cpus) {
    const auto it = domain_of_pu.find(cpu);
    if (it == domain_of_pu.end()) continue;
    if (domain != -1 && domain != it->second) return -1;
    domain = it->second;
  }
  return domain;
}

void fill_gpu_numa(std::vector<Gpu>& gpus) {
  if (gpus.empty()) return;
  const std::vector<PciGpu> pci_gpus = nvidia_pci_gpus(load_with_pci().get());
  // Domains come from the same no-I/O load plan_binding() uses, so both share one numbering.
  const CpuTopology topo = load_cpu_topology();
  for (Gpu& gpu : gpus) {
    if (!all_digits(gpu.id) || gpu.id.size() > 4) continue;  // UUIDs, MIG ids: position unknown
    const size_t index = std::stoul(gpu.id);
    if (index < pci_gpus.size()) gpu.numa = numa_domain_of(topo, pci_gpus[index].locality);
  }
}

}  // namespace hvd::launcher::binding
