// SPDX-License-Identifier: Apache-2.0
#include "config/host_spec.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hvd/error.h"
#include "util/text.h"

namespace hvd::launcher::config {
namespace {

std::string trim(const std::string& s) { return std::string(util::trim(s)); }

// A positive decimal integer, or -1.
int parse_slots(const std::string& text) {
  const int v = util::parse_decimal(text, 999999);
  return v > 0 ? v : -1;
}

bool valid_host_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok =
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == ':';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::vector<HostSlots> parse_host_list(const std::string& text) {
  if (trim(text).empty()) throw UsageError("-H: empty host list; expected e.g. -H localhost:4");
  std::vector<HostSlots> hosts;
  std::stringstream in(text);
  std::string entry;
  while (std::getline(in, entry, ',')) {
    entry = trim(entry);
    HostSlots h;
    const auto colon = entry.rfind(':');
    h.name = colon == std::string::npos ? entry : entry.substr(0, colon);
    if (colon != std::string::npos) h.slots = parse_slots(entry.substr(colon + 1));
    if (!valid_host_name(h.name) || h.name.find(':') != std::string::npos) {
      throw UsageError(
          str_cat("-H: '", entry, "' is not host[:slots]; expected e.g. -H localhost:4"));
    }
    if (h.slots < 1) {
      throw UsageError(str_cat("-H: '", entry, "': slots must be a positive integer"));
    }
    hosts.push_back(h);
  }
  if (hosts.empty() || text.back() == ',') {
    throw UsageError(str_cat("-H: '", text, "' has an empty entry; expected e.g. -H localhost:4"));
  }
  return hosts;
}

std::vector<HostSlots> parse_hostfile_text(const std::string& text, const std::string& path) {
  std::vector<HostSlots> hosts;
  std::stringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto hash = line.find('#');
    line = trim(hash == std::string::npos ? line : line.substr(0, hash));
    if (line.empty()) continue;
    std::stringstream fields(line);
    std::string name, extra, rest;
    fields >> name >> extra >> rest;
    HostSlots h{name, 1};
    if (const auto colon = name.find(':'); colon != std::string::npos && extra.empty()) {
      h.name = name.substr(0, colon);
      h.slots = parse_slots(name.substr(colon + 1));
    } else if (!extra.empty()) {
      h.slots = extra.rfind("slots=", 0) == 0 ? parse_slots(extra.substr(6)) : -1;
    }
    if (!rest.empty() || h.slots < 1 || !valid_host_name(h.name) ||
        h.name.find(':') != std::string::npos) {
      throw ConfigError(
          str_cat(path, ":", number, ": '", line,
                  "' is not 'host slots=N', 'host:N' or 'host' (N from 1 to 999999); fix the line"));
    }
    hosts.push_back(h);
  }
  if (hosts.empty()) {
    throw ConfigError(str_cat(path, ": no hosts listed; add a line such as 'localhost slots=4'"));
  }
  return hosts;
}

std::vector<HostSlots> parse_hostfile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {  // it reads as empty: "no hosts listed"
    throw ConfigError(str_cat(path, ": cannot read hostfile: it is a directory"));
  }
  std::ifstream in(path);
  if (!in) throw ConfigError(str_cat(path, ": cannot read hostfile: ", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_hostfile_text(text.str(), path);
}

std::string this_host_name() {
  char host[256] = {};
  return gethostname(host, sizeof(host) - 1) == 0 ? std::string(host) : std::string();
}

std::set<std::string> this_machine_names() {
  std::set<std::string> names = {"localhost", "127.0.0.1", "::1", "localhost.localdomain"};
  if (const std::string full = this_host_name(); !full.empty()) {
    names.insert(full);
    names.insert(full.substr(0, full.find('.')));
  }
  ifaddrs* addrs = nullptr;
  if (getifaddrs(&addrs) == 0) {
    for (ifaddrs* a = addrs; a != nullptr; a = a->ifa_next) {
      if (a->ifa_addr == nullptr) continue;
      char text[INET6_ADDRSTRLEN] = {};
      const int family = a->ifa_addr->sa_family;
      const void* raw = nullptr;
      if (family == AF_INET) raw = &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr;
      if (family == AF_INET6) raw = &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr;
      if (raw != nullptr && inet_ntop(family, raw, text, sizeof(text)) != nullptr) {
        names.insert(text);
      }
    }
    freeifaddrs(addrs);
  }
  return names;
}

void require_local_hosts(const std::vector<HostSlots>& hosts, const std::set<std::string>& names,
                         const std::string& origin) {
  for (const HostSlots& h : hosts) {
    if (names.count(h.name) == 0) {
      throw UsageError(str_cat(origin, ": host '", h.name,
                               "' is not this machine; outside Slurm hvdrun runs ranks on this "
                               "machine only (use -H localhost:N, or run hvdrun inside a Slurm "
                               "allocation for several nodes)"));
    }
  }
  if (hosts.size() > 1) {
    throw UsageError(str_cat(origin, ": '", hosts[0].name, "' and '", hosts[1].name,
                             "' both name this machine; list it once with the total slots, "
                             "e.g. localhost:",
                             hosts[0].slots + hosts[1].slots));
  }
}

}  // namespace hvd::launcher::config
