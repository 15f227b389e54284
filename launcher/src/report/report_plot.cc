// SPDX-License-Identifier: Apache-2.0
#include "report/report_plot.h"

#include "hvd/error.h"

namespace hvd::launcher::report {
namespace {

// Same size and font for both formats, so the SVG and the PNG look alike. "noenhanced": titles
// hold names like ring/shm and hvd_bench whose _ and ^ must stay literal.
std::string terminal_for(const std::string& format) {
  if (format == "png") return "set terminal pngcairo size 900,560 noenhanced font 'sans,11'\n";
  if (format == "svg") {
    return "set terminal svg size 900,560 noenhanced font 'sans,11' background rgb 'white'\n";
  }
  throw InternalError(str_cat("no gnuplot terminal for format ", format));
}

}  // namespace

// Single quotes: gnuplot expands backquotes (a shell command) and backslash escapes inside
// double quotes, never inside single ones, where '' is the only escape. A newline would end the
// command, so a control character here is a bug: report_data lets none through.
std::string gnuplot_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    HVD_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f,
              "control character in a gnuplot string: ", text);
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
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

std::string gnuplot_script(const std::vector<Plot>& plots,
                           const std::vector<std::string>& formats) {
  std::string script = "set encoding utf8\n";
  for (const std::string& format : formats) {
    for (const Plot& p : plots) {
      script += "reset\n" + terminal_for(format);
      script += str_cat("set output ", gnuplot_quote(p.name + "." + format), "\n");
      script += p.commands;
      script += "unset output\n";
    }
  }
  return script;
}

}  // namespace hvd::launcher::report
