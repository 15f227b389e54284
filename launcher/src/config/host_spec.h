// SPDX-License-Identifier: Apache-2.0
#pragma once
// Hosts and their slots, from `-H h1:4,h2:2` or a hostfile (horovodrun/Open MPI forms).

#include <set>
#include <string>
#include <vector>

namespace hvd::launcher::config {

struct HostSlots {
  std::string name;
  int slots = 1;
};

/// Parses "-H" text: comma-separated `host[:slots]` (slots default 1).
/// Throws UsageError naming the bad entry, e.g. "-H: 'node1:x': slots must be a positive integer".
std::vector<HostSlots> parse_host_list(const std::string& text);

/// Parses a hostfile: one host per line as `host slots=N`, `host:N` or `host`; `#` comments and
/// blank lines are ignored. Throws ConfigError "FILE:LINE: ..." for a malformed line or an
/// unreadable file.
std::vector<HostSlots> parse_hostfile(const std::string& path);
std::vector<HostSlots> parse_hostfile_text(const std::string& text, const std::string& path);

/// This machine's host name (gethostname); empty if it cannot be read.
std::string this_host_name();

/// The names and addresses by which this machine knows itself: localhost, loopback addresses,
/// its host name (short and as given) and the addresses of its interfaces.
std::set<std::string> this_machine_names();

/// Checks that every host is this machine (remote hosts need the Slurm mode) and that it is
/// named once. `origin` ("-H" or the hostfile path) prefixes errors; throws UsageError.
void require_local_hosts(const std::vector<HostSlots>& hosts, const std::set<std::string>& names,
                         const std::string& origin);

}  // namespace hvd::launcher::config
