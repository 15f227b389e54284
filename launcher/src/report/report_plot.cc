// SPDX-License-Identifier: Apache-2.0
#include "report/report_plot.h"

#include <algorithm>
#include <sstream>
#include <string_view>

#include "hvd/error.h"

namespace hvd::launcher::report {
namespace {

// Same size and font for both formats, so the SVG and the PNG look alike. "noenhanced": titles
// hold names like ring/shm and hvd_bench whose _ and ^ must stay literal.
std::string terminal_for(const std::string& format, int width, int height) {
  const std::string size = str_cat(" size ", width, ",", height);
  if (format == "png") return "set terminal pngcairo" + size + " noenhanced font 'sans,11'\n";
  if (format == "svg") {
    return "set terminal svg" + size + " noenhanced font 'sans,11' background rgb 'white'\n";
  }
  throw InternalError(str_cat("no gnuplot terminal for format ", format));
}

// A number written into a script (a median, a threshold): our own double, never file text.
std::string number_text(double v) {
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

// A tic label is a format as well as a string: gnuplot expands %-sequences in it (a host
// "a%s" fails with "Bad format character"), so each % is doubled.
std::string tic_label(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '%' ? "%%" : std::string(1, c);
  return gnuplot_quote(out);
}

std::string tics(const std::vector<std::string>& labels) {
  std::string out = "set xtics rotate by -30 (";
  for (size_t i = 0; i < labels.size(); ++i) {
    out += str_cat(i == 0 ? "" : ", ", tic_label(labels[i]), " ", i);
  }
  return out + ")\n";
}

const char* const kOkColour = "'#4682b4'";
const char* const kFlaggedColour = "'#d62728'";

// One panel: a bar per entry (column `column` of data block `index`; column 2 is flagged),
// blue or red, and the median with the limit the threshold sets as horizontal lines.
struct Panel {
  std::string title;
  int index = 0;
  int column = 0;
  std::vector<std::string> labels;
  std::vector<bool> flagged;
  double median = 0;
  double limit = 0;
  std::string limit_title;
};

std::string panel_commands(const Panel& panel, const std::string& data_file) {
  std::string c = "set title " + gnuplot_quote(panel.title) + "\n";
  c += str_cat("set xrange [-0.6:", number_text(panel.labels.size() - 0.4), "]\n");
  c += tics(panel.labels);
  const std::string source = str_cat(gnuplot_quote(data_file), " index ", panel.index);
  std::vector<std::string> series;
  const auto bars = [&](bool flagged) {
    // NaN (1/0) leaves out the other kind's bars, so each kind has its own colour and key entry.
    const std::string value = str_cat("$", panel.column);
    series.push_back(str_cat(source, " using 1:($2 > 0 ? ", flagged ? value : "1/0", " : ",
                             flagged ? "1/0" : value, ") with boxes lc rgb ",
                             flagged ? kFlaggedColour : kOkColour, " title ",
                             gnuplot_quote(flagged ? "flagged" : "ok")));
  };
  const size_t flagged = std::count(panel.flagged.begin(), panel.flagged.end(), true);
  if (flagged < panel.flagged.size()) bars(false);
  if (flagged > 0) bars(true);
  series.push_back(str_cat(number_text(panel.median), " with lines lw 2 lc rgb 'black' title ",
                           gnuplot_quote("median")));
  series.push_back(str_cat(number_text(panel.limit), " with lines lw 2 dt 2 lc rgb ",
                           kFlaggedColour, " title ", gnuplot_quote(panel.limit_title)));
  c += "plot ";
  for (size_t i = 0; i < series.size(); ++i) c += (i == 0 ? "" : ", ") + series[i];
  return c + "\n";
}

// gnuplot shows at most 49 characters of a tic label, so a link between two long names is
// labelled with their first parts ("gpu017 <-> gpu018" for gpu017.cluster.example.org and its
// neighbour). An address (it starts with a digit or holds ':') is kept whole.
std::string link_label(const PreflightLink& link) {
  constexpr size_t kTicLabelMax = 49;
  const std::string full = link.a + " <-> " + link.b;
  if (full.size() <= kTicLabelMax) return full;
  const auto first_part = [](const std::string& host) {
    const bool address = (host[0] >= '0' && host[0] <= '9') || host.find(':') != std::string::npos;
    return address ? host : host.substr(0, host.find('.'));
  };
  return first_part(link.a) + " <-> " + first_part(link.b);
}

// "flagged node1, node2 and 2 links", "flagged n1, ..., n6 and 3 more", "flagged 1 link" or
// "nothing flagged": six hosts at most, so that the title fits.
std::string flagged_text(const PreflightTable& t) {
  const size_t links = std::count_if(t.links.begin(), t.links.end(),
                                     [](const PreflightLink& l) { return l.flagged; });
  if (t.flagged_hosts.empty() && links == 0) return "nothing flagged";
  std::string out = "flagged ";
  const size_t shown = std::min<size_t>(t.flagged_hosts.size(), 6);
  for (size_t i = 0; i < shown; ++i) out += (i == 0 ? "" : ", ") + t.flagged_hosts[i];
  if (t.flagged_hosts.size() > shown) {
    out += str_cat(" and ", t.flagged_hosts.size() - shown, " more");
  }
  if (links > 0) {
    out += str_cat(t.flagged_hosts.empty() ? "" : " and ", links, links == 1 ? " link" : " links");
  }
  return out;
}

}  // namespace

// gnuplot's own quoting cannot carry every string: in a single-quoted literal '' is the only
// escape, and gnuplot 5.4 misreads it at the start of a string or twice in a row ('''a' and
// 'a''''b' are syntax errors, issue 23 #8); in a double-quoted one backslash escapes are
// expanded, and backquotes (a shell command) and @macros are substituted in the line before it
// is parsed. So every byte outside a small safe set is written as an octal escape: the script
// then holds no quote, backquote, @, $, backslash or newline of the string's own, whatever the
// string is, and gnuplot's escape processing gives back exactly the original bytes. gnuplot
// reads a fourth digit after \0 ("\0441" is '!', not "$1"), so a digit right after an escape
// is escaped too.
std::string gnuplot_quote(const std::string& text) {
  static constexpr char kDigits[] = "01234567";
  static constexpr std::string_view kSafePunctuation = " _.,:/()[]<>+=-";
  std::string out = "\"";
  bool after_escape = false;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool digit = c >= '0' && c <= '9';
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (digit && !after_escape) ||
                      (byte != 0 && kSafePunctuation.find(c) != std::string_view::npos);
    if (safe) {
      out += c;
    } else {
      out += {'\\', kDigits[byte >> 6], kDigits[(byte >> 3) & 7], kDigits[byte & 7]};
    }
    after_escape = !safe;
  }
  return out + "\"";
}

Plot bench_plot(const BenchTable& t, const std::string& name) {
  Plot p{name, name + ".dat", to_gnuplot_data(t), ""};
  std::string c;
  c += "set title " + gnuplot_quote(t.title + ": bus bandwidth") + "\n";
  c += "set logscale x 2\n";
  c += "set format x '%.0b%B'\n";  // binary prefixes: 8, 1Ki, 64Mi
  c += "set xlabel 'message size (bytes)'\n";
  c += "set ylabel 'bus bandwidth (GB/s)'\n";
  c += "set grid\nset key top left\nset datafile missing '?'\n";
  c += "plot ";
  for (size_t i = 0; i < t.impls.size(); ++i) {
    c += str_cat(i == 0 ? "" : ", ", gnuplot_quote(p.data_file), " using 1:", i + 2,
                 " with linespoints lw 2 pt 7 title ", gnuplot_quote(t.impls[i]));
  }
  p.commands = c + "\n";
  return p;
}

Plot train_plot(const TrainTable& t, const std::string& name) {
  Plot p{name, name + ".dat", to_gnuplot_data(t), ""};
  std::string c;
  c += "set title " + gnuplot_quote(t.title) + "\n";
  c += "set xlabel 'ranks'\nset xtics (";
  for (size_t i = 0; i < t.rows.size(); ++i) c += str_cat(i == 0 ? "" : ", ", t.rows[i].ranks);
  c += ")\n";
  c += "set logscale x 2\nset offsets graph 0.05, graph 0.05, 0, 0\n";  // keep end points off the
                                                                        // border
  c += "set ylabel 'images per second (all ranks)'\nset yrange [0:*]\nset ytics nomirror\n";
  c += "set y2label 'scaling efficiency'\nset y2range [0:1.2]\nset y2tics 0.2\n";
  c += "set grid\nset key bottom right\n";
  c +=
      str_cat("plot ", gnuplot_quote(p.data_file), " using 1:2:3 with yerrorlines lw 2 pt 7 title ",
              gnuplot_quote("images/sec"), ", ", gnuplot_quote(p.data_file),
              " using 1:4 axes x1y2 with linespoints lw 2 pt 5 dt 2 title ",
              gnuplot_quote("scaling efficiency"), "\n");
  p.commands = c;
  return p;
}

Plot preflight_plot(const PreflightTable& t, const std::string& name) {
  Plot p{name, name + ".dat", to_gnuplot_data(t), ""};
  const std::string th = number_text(t.threshold);
  std::vector<std::string> hosts;
  std::vector<bool> node_flags;
  bool intra = false;
  for (const PreflightNode& n : t.nodes) {
    hosts.push_back(n.host);
    node_flags.push_back(n.flagged);
    intra = intra || n.intra_busbw_gbps.has_value();
  }
  std::vector<Panel> panels;
  panels.push_back({"node memory bandwidth (GB/s)", 0, 3, hosts, node_flags, t.median_memory_gbps,
                    t.threshold * t.median_memory_gbps, th + " x median"});
  if (intra) {
    panels.push_back({"node shared-memory allreduce busbw (GB/s)", 0, 4, hosts, node_flags,
                      t.median_intra_busbw_gbps, t.threshold * t.median_intra_busbw_gbps,
                      th + " x median"});
  }
  if (!t.links.empty()) {
    std::vector<std::string> links;
    std::vector<bool> link_flags;
    for (const PreflightLink& l : t.links) {
      links.push_back(link_label(l));
      link_flags.push_back(l.flagged);
    }
    panels.push_back({"link allreduce busbw (GB/s)", 1, 3, links, link_flags,
                      t.median_link_busbw_gbps, t.threshold * t.median_link_busbw_gbps,
                      th + " x median"});
    panels.push_back({"link latency (us; higher is worse)", 1, 4, links, link_flags,
                      t.median_link_latency_us, t.median_link_latency_us / t.threshold,
                      "median / " + th});
  }
  const int cols = panels.size() == 1 ? 1 : 2;
  const int rows = static_cast<int>((panels.size() + 1) / 2);
  p.width = cols == 1 ? 900 : 1400;
  p.height = 100 + 460 * rows;
  std::string c = "set style fill solid 0.8 border -1\nset boxwidth 0.7\n";
  c += "set datafile missing '?'\nset grid ytics\nset yrange [0:*]\n";
  c += "set key outside right top\nset bmargin 6\n";  // bmargin: room for slanted host names
  c += "set offsets 0, 0, graph 0.08, 0\n";           // room above the tallest bar
  c += str_cat(
      "set multiplot layout ", rows, ",", cols, " title ",
      gnuplot_quote(str_cat("hvdrun preflight, threshold ", th, " x median: ", flagged_text(t))),
      "\n");
  for (const Panel& panel : panels) c += panel_commands(panel, p.data_file);
  p.commands = c + "unset multiplot\n";
  return p;
}

std::string gnuplot_script(const std::vector<Plot>& plots,
                           const std::vector<std::string>& formats) {
  std::string script = "set encoding utf8\n";
  for (const std::string& format : formats) {
    for (const Plot& p : plots) {
      script += "reset\n" + terminal_for(format, p.width, p.height);
      script += str_cat("set output ", gnuplot_quote(p.name + "." + format), "\n");
      script += p.commands;
      script += "unset output\n";
    }
  }
  return script;
}

}  // namespace hvd::launcher::report
