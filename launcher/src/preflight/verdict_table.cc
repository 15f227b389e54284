// SPDX-License-Identifier: Apache-2.0
#include "preflight/verdict_table.h"

#include <cstdio>
#include <string>

namespace hvd::launcher::preflight {
namespace {

std::string signed_cell(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

// A figure that is never negative: a negative value means "not measured" (-1) and prints "-".
std::string cell(const char* format, double value) {
  return value < 0 ? "-" : signed_cell(format, value);
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

std::string line(const char* format, const std::string& a, const std::string& b,
                 const std::string& c, const std::string& d, const std::string& e,
                 const std::string& f, const std::string& g) {
  char text[512];
  std::snprintf(text, sizeof(text), format, a.c_str(), b.c_str(), c.c_str(), d.c_str(), e.c_str(),
                f.c_str(), g.c_str());
  return text;
}

constexpr const char* kNodeRow = "%-20s %5s %5s %10s %12s %14s  %s\n";
constexpr const char* kLinkRow = "%-20s %-20s %12s %12s %s%s%s\n";

void print_nodes(std::ostream& out, const Verdict& v) {
  out << "Nodes\n"
      << line(kNodeRow, "HOST", "RANKS", "GPUS", "CLOCK ms", "MEMORY GB/s", "INTRA GB/s",
              "VERDICT");
  for (const NodeVerdict& n : v.nodes) {
    out << line(kNodeRow, n.host, std::to_string(n.rank_ids.size()), std::to_string(n.gpus),
                signed_cell("%+.2f", n.clock_offset_ms), cell("%.2f", n.memory_gbps),
                cell("%.3f", n.intra_busbw_gbps),
                n.reasons.empty() ? "ok" : "FLAGGED: " + joined(n.reasons, "; "));
  }
  out << line(kNodeRow, "median", "", "", "", cell("%.2f", v.medians.memory_gbps),
              v.medians.intra_busbw_gbps > 0 ? cell("%.3f", v.medians.intra_busbw_gbps) : "-", "");
}

void print_links(std::ostream& out, const Verdict& v) {
  if (v.links.empty()) {
    out << "Links: none (one node)\n";
    return;
  }
  out << "Links (node leaders, libhvd allreduce)\n"
      << line(kLinkRow, "A", "B", "LATENCY us", "BUSBW GB/s", "VERDICT", "", "");
  for (const LinkVerdict& l : v.links) {
    out << line(kLinkRow, l.a, l.b, cell("%.1f", l.latency_us), cell("%.3f", l.busbw_gbps),
                l.reasons.empty() ? "ok" : "FLAGGED: ", joined(l.reasons, "; "), "");
  }
  out << line(kLinkRow, "median", "", cell("%.1f", v.medians.link_latency_us),
              cell("%.3f", v.medians.link_busbw_gbps), "", "", "");
}

}  // namespace

void print_verdict(std::ostream& out, const Verdict& v) {
  print_nodes(out, v);
  out << "\n";
  print_links(out, v);
  out << "\nAll ranks: allreduce latency " << cell("%.1f", v.all_latency_us) << " us, busbw "
      << cell("%.3f", v.all_busbw_gbps) << " GB/s; preflight took " << cell("%.1f", v.seconds)
      << " s; threshold " << cell("%.2f", v.threshold) << " x median\n";
  out << (v.anything_flagged() ? "Verdict: FLAGGED" : "Verdict: nothing flagged");
  if (!v.flagged_hosts.empty()) out << " (" << joined(v.flagged_hosts, ", ") << ")";
  out << std::endl;
}

}  // namespace hvd::launcher::preflight
