// SPDX-License-Identifier: Apache-2.0
// hvd-bench, hvd-train and hvdrun preflight JSON into gnuplot's tables (tests/data/report holds
// the fixtures).
#include "report/report_data.h"

#include <doctest/doctest.h>

#include "hvd/error.h"
#include "report/report_plot.h"

namespace report = hvd::launcher::report;
using nlohmann::json;

namespace {

const std::string kDir = std::string(HVD_TEST_DATA_DIR) + "/report/";

report::Input bench(json results) {
  return {"b.json",
          "hvd-bench",
          {{"tool", "hvd-bench"},
           {"ranks", 2},
           {"hosts", 1},
           {"backend", "ring/shm"},
           {"dtype", "float32"},
           {"results", results}}};
}

json impl(double busbw) {
  return {{"time_us", 1.0}, {"algbw_GBps", busbw}, {"busbw_GBps", busbw}, {"wrong", 0}};
}

report::Input train(int ranks, double total, json efficiency) {
  return {"np" + std::to_string(ranks) + ".json",
          "hvd-train",
          {{"tool", "hvd-train"},
           {"ranks", ranks},
           {"device", "cpu"},
           {"batch_per_rank", 64},
           {"img_per_sec_total", {{"mean", total}, {"ci", 1.5}}},
           {"scaling_efficiency", efficiency}}};
}

}  // namespace

TEST_CASE("report_data: bench rows sorted by size, impls in hvd, mpi, gloo order, gaps as ?") {
  const json results = json::array(
      {{{"op", "allreduce"},
        {"rows", json::array({{{"bytes", 1024}, {"impls", {{"gloo", impl(0.5)}, {"hvd", impl(2)}}}},
                              {{"bytes", 8}, {"impls", {{"hvd", impl(0.25)}}}}})}},
       {{"op", "allgather"}, {"rows", json::array()}}});
  const std::vector<report::BenchTable> tables = report::bench_tables(bench(results));
  REQUIRE(tables.size() == 1);  // allgather has no rows: no picture
  const report::BenchTable& t = tables[0];
  CHECK(t.op == "allreduce");
  CHECK(t.title == "allreduce, 2 ranks on 1 host (ring/shm, float32)");
  CHECK(t.impls == std::vector<std::string>{"hvd", "gloo"});  // mpi never ran
  CHECK(report::to_gnuplot_data(t) == "# bytes hvd gloo\n8 0.25 ?\n1024 2 0.5\n");
}

TEST_CASE("report_data: a bench row without busbw names the file and the place") {
  const json results = json::array(
      {{{"op", "allreduce"}, {"rows", json::array({{{"bytes", 8}, {"impls", {{"hvd", {}}}}}})}}});
  CHECK_THROWS_WITH_AS(
      report::bench_tables(bench(results)),
      doctest::Contains("b.json: results[0].rows[0].impls.hvd has no \"busbw_GBps\""),
      hvd::ConfigError);
}

TEST_CASE(
    "report_data: train rows by ranks; a null efficiency is computed against the fewest ranks") {
  const report::TrainTable t =
      report::train_table({train(4, 720, nullptr), train(1, 200, nullptr), train(2, 390, 0.97)});
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[0].ranks == 1);
  CHECK(t.rows[0].efficiency == doctest::Approx(1.0));
  CHECK(t.rows[1].efficiency == doctest::Approx(0.97));  // as the file says
  CHECK(t.rows[2].efficiency == doctest::Approx(0.9));   // 720/4 / 200
  CHECK(report::to_gnuplot_data(t) ==
        "# ranks img_per_sec img_per_sec_ci efficiency\n1 200 1.5 1\n2 390 1.5 0.97\n4 720 1.5 "
        "0.9\n");
}

TEST_CASE("report_data: two train results for the same rank count are refused") {
  CHECK_THROWS_WITH_AS(report::train_table({train(2, 1, nullptr), train(2, 2, nullptr)}),
                       doctest::Contains("a second hvd-train result for 2 ranks"),
                       hvd::ConfigError);
}

TEST_CASE("report_data: files are classified by their tool, bad ones name the file") {
  CHECK(report::load_input(kDir + "bench-fixture.json").tool == "hvd-bench");
  CHECK(report::load_input(kDir + "train-np2.json").tool == "hvd-train");
  CHECK(report::load_input(kDir + "preflight-fixture.json").tool == "hvdrun preflight");
  CHECK_THROWS_WITH_AS(report::load_input(kDir + "broken.json"),
                       doctest::Contains("broken.json: not valid JSON"), hvd::ConfigError);
  CHECK_THROWS_WITH_AS(
      report::load_input(kDir + "other-tool.json"),
      doctest::Contains("not hvd-bench, hvd-train, hvdrun predict or hvdrun preflight JSON "
                        "(\"tool\" is \"something-else\")"),
      hvd::ConfigError);
  CHECK_THROWS_WITH_AS(report::load_input(kDir + "missing.json"),
                       doctest::Contains("missing.json: cannot open the file"), hvd::ConfigError);
}

TEST_CASE("report_plot: one line per implementation, titled with its name, log2 sizes") {
  report::BenchTable t;
  t.op = "allreduce";
  t.title = "allreduce 'x'";
  t.impls = {"hvd", "mpi"};
  const report::Plot p = report::bench_plot(t, "bench-allreduce");
  CHECK(p.data_file == "bench-allreduce.dat");
  CHECK(p.commands.find("set logscale x 2") != std::string::npos);
  CHECK(p.commands.find("using 1:2 with linespoints lw 2 pt 7 title \"hvd\"") != std::string::npos);
  CHECK(p.commands.find("using 1:3 with linespoints lw 2 pt 7 title \"mpi\"") != std::string::npos);
  CHECK(p.commands.find("set title \"allreduce \\047x\\047: bus bandwidth\"") != std::string::npos);
  const std::string script = report::gnuplot_script({p}, {"png", "svg"});
  CHECK(script.find("set output \"bench-allreduce.png\"") != std::string::npos);
  CHECK(script.find("set output \"bench-allreduce.svg\"") != std::string::npos);
}

// Issue 10: a `backend` of "ring`touch X`" made gnuplot run `touch X` (backquotes inside a
// double-quoted title), and `op` went unescaped into `set output '...'`.
TEST_CASE("report_data: strings that would reach gnuplot as code are refused, naming the field") {
  const json results =
      json::array({{{"op", "allreduce"},
                    {"rows", json::array({{{"bytes", 8}, {"impls", {{"hvd", impl(1)}}}}})}}});
  for (const std::string& attack :
       {std::string("ring`touch X`"), std::string("a\" ; system(\"touch X\") ; \""),
        std::string("a'; system('touch X'); '"), std::string("ring\nsystem('touch X')"),
        std::string("@macro"), std::string("$x")}) {
    CAPTURE(attack);
    report::Input in = bench(results);
    in.doc["backend"] = attack;
    CHECK_THROWS_WITH_AS(report::bench_tables(in),
                         doctest::Contains("b.json: the top level.backend may hold only"),
                         hvd::ConfigError);
  }
  for (const std::string& op : {std::string("x'\nsystem('touch X')\n'"), std::string("a/b"),
                                std::string("all`id`"), std::string("")}) {
    CAPTURE(op);
    const json bad = json::array({{{"op", op}, {"rows", json::array()}}});
    CHECK_THROWS_WITH_AS(report::bench_tables(bench(bad)),
                         doctest::Contains("b.json: results[0].op must be a name"),
                         hvd::ConfigError);
  }
  report::Input t = train(2, 10, nullptr);
  t.doc["device"] = "cpu`touch X`";
  CHECK_THROWS_WITH_AS(report::train_table({t}),
                       doctest::Contains("np2.json: the top level.device may hold only"),
                       hvd::ConfigError);
}

// Issue 10: wrong JSON types escaped as nlohmann::type_error, which hvdrun reports as an
// internal error (exit 70). Each is a ConfigError naming the file and the field.
TEST_CASE("report_data: fields of the wrong type are configuration errors naming the field") {
  const json row = {{"bytes", 8}, {"impls", {{"hvd", impl(1)}}}};
  const auto bench_error = [](report::Input in, const std::string& says) {
    CAPTURE(says);
    CHECK_THROWS_WITH_AS(report::bench_tables(in), doctest::Contains(says.c_str()),
                         hvd::ConfigError);
  };
  report::Input in = bench(json::array({{{"op", "allreduce"}, {"rows", json::array({row})}}}));
  in.doc["ranks"] = "2";
  bench_error(in, "b.json: the top level.ranks must be a whole number");
  in = bench(json::array({{{"op", "allreduce"}, {"rows", json::array({row})}}}));
  in.doc["backend"] = 5;
  bench_error(in, "b.json: the top level.backend must be a string, not number");
  bench_error(bench(json::object({{"op", "x"}})), "b.json: the top level.results must be a list");
  bench_error(bench(json::array({{{"op", 7}, {"rows", json::array()}}})),
              "results[0].op must be a string, not number");
  bench_error(bench(json::array({{{"op", "allreduce"}, {"rows", "many"}}})),
              "results[0].rows must be a list, not string");
  bench_error(bench(json::array(
                  {{{"op", "allreduce"}, {"rows", json::array({{{"bytes", 8}, {"impls", 3}}})}}})),
              "results[0].rows[0].impls must be an object, not number");
  bench_error(bench(json::array({{{"op", "allreduce"}, {"rows", json::array({"row"})}}})),
              "results[0].rows[0] has no \"impls\"");

  report::Input t = train(2, 10, "high");
  CHECK_THROWS_WITH_AS(report::train_table({t}),
                       doctest::Contains("scaling_efficiency must be a number or null"),
                       hvd::ConfigError);
  t = train(2, 10, nullptr);
  t.doc["batch_per_rank"] = "64";
  CHECK_THROWS_WITH_AS(report::train_table({t}),
                       doctest::Contains("batch_per_rank must be a whole"), hvd::ConfigError);
  t = train(2, 10, nullptr);
  t.doc["img_per_sec_total"] = 12.5;
  CHECK_THROWS_WITH_AS(report::train_table({t}),
                       doctest::Contains("img_per_sec_total must be an object"), hvd::ConfigError);
  t = train(2, 10, nullptr);
  t.doc["ranks"] = 1e300;  // was cast to int before the range check: undefined behaviour
  CHECK_THROWS_WITH_AS(report::train_table({t}),
                       doctest::Contains("\"ranks\" must be a whole number from 1 to 1000000"),
                       hvd::ConfigError);
}

TEST_CASE("report_plot: any string becomes a gnuplot literal with nothing of its own to parse") {
  CHECK(report::gnuplot_quote("ring/shm a-b") == "\"ring/shm a-b\"");
  CHECK(report::gnuplot_quote("ring`touch X`") == "\"ring\\140touch X\\140\"");
  CHECK(report::gnuplot_quote("'''a") == "\"\\047\\047\\047a\"");  // issue 23 #8
  CHECK(report::gnuplot_quote("a\nb\"\\$(id)@x") == "\"a\\012b\\042\\134\\044(id)\\100x\"");
  // gnuplot reads "\0441" as one escape ('!'): a digit after an escape is escaped too.
  CHECK(report::gnuplot_quote("$1 a1") == "\"\\044\\061 a1\"");
  CHECK(report::gnuplot_quote(std::string(1, '\0') + "77") == "\"\\000\\067\\067\"");
  for (int b = 0; b < 256; ++b) {  // between the quotes: no character gnuplot treats specially
    const std::string q = report::gnuplot_quote(std::string(1, static_cast<char>(b)));
    CAPTURE(b);
    CHECK(q.substr(1, q.size() - 2).find_first_of("'\"`@$#;\n") == std::string::npos);
  }
  report::BenchTable t;
  t.op = "allreduce";
  t.impls = {"hvd"};
  t.bytes = {8};
  t.busbw = {{1.0}};
  const report::Plot p = report::bench_plot(t, "b-allreduce");
  const std::string script = report::gnuplot_script({p}, {"png"});
  CHECK(script.find("set output \"b-allreduce.png\"\n") != std::string::npos);
}

TEST_CASE(
    "report_data: a preflight verdict gives a bar per node and link, their flags and medians") {
  const report::PreflightTable t =
      report::preflight_table(report::load_input(kDir + "preflight-fixture.json"));
  CHECK(t.threshold == 0.7);
  CHECK(t.median_memory_gbps == 40.2);
  CHECK(t.median_intra_busbw_gbps == 8.2);
  CHECK(t.median_link_busbw_gbps == 1.355);
  CHECK(t.median_link_latency_us == 506);
  REQUIRE(t.nodes.size() == 4);
  CHECK(t.nodes[1].host == "node2");
  CHECK(t.nodes[1].flagged);
  CHECK(t.nodes[0].intra_busbw_gbps == 8.2);
  CHECK_FALSE(t.nodes[3].intra_busbw_gbps.has_value());  // -1 in the file: one rank there
  CHECK(t.flagged_hosts == std::vector<std::string>{"node2"});
  REQUIRE(t.links.size() == 4);
  CHECK(t.links[0].a == "node1");
  CHECK(t.links[0].b == "node2");
  CHECK(t.links[0].flagged);
  CHECK_FALSE(t.links[2].flagged);
  CHECK(t.links[1].latency_us == 1010);
  CHECK(report::to_gnuplot_data(t) ==
        "# nodes: x flagged memory_gbps intra_busbw_gbps\n"
        "0 0 40.1 8.2\n1 1 39.5 7.9\n2 0 41 8.4\n3 0 40.3 ?\n"
        "\n\n# links: x flagged busbw_gbps latency_us\n"
        "0 1 0.31 950\n1 1 0.29 1010\n2 0 2.4 62\n3 0 2.5 60\n");
}

namespace {

report::Input preflight_input() { return report::load_input(kDir + "preflight-fixture.json"); }

void expect_preflight_error(const report::Input& in, const std::string& says) {
  CAPTURE(says);
  CHECK_THROWS_WITH_AS(report::preflight_table(in), doctest::Contains(says.c_str()),
                       hvd::ConfigError);
}

}  // namespace

TEST_CASE("report_data: a malformed preflight verdict names the file and the field") {
  report::Input in = preflight_input();
  in.doc.erase("nodes");
  expect_preflight_error(in, "preflight-fixture.json: the top level has no \"nodes\"");
  in = preflight_input();
  in.doc["nodes"] = json::array();
  expect_preflight_error(in, "preflight-fixture.json: the top level.nodes is empty");
  in = preflight_input();
  in.doc["nodes"][1]["memory_gbps"] = "fast";
  expect_preflight_error(in, "nodes[1].memory_gbps must be a number, not string");
  in = preflight_input();
  in.doc["nodes"][0]["flagged"] = "no";
  expect_preflight_error(in, "nodes[0].flagged must be true or false, not string");
  in = preflight_input();
  in.doc["nodes"][2]["host"] = 3;
  expect_preflight_error(in, "nodes[2].host must be a string, not number");
  in = preflight_input();
  in.doc["links"][3].erase("b");
  expect_preflight_error(in, "links[3] has no \"b\"");
  in = preflight_input();
  in.doc["medians"] = 1;
  expect_preflight_error(in, "the top level.medians must be an object, not number");
  in = preflight_input();
  in.doc["medians"].erase("link_latency_us");
  expect_preflight_error(in, "medians has no \"link_latency_us\"");
  for (double threshold : {0.0, 1.5, -0.7}) {
    CAPTURE(threshold);
    in = preflight_input();
    in.doc["threshold"] = threshold;
    expect_preflight_error(in, "the top level.threshold must be above 0 and at most 1");
  }
  // A newline would end the gnuplot command it is quoted in; nothing else needs refusing.
  for (const std::string& host : {std::string(""), std::string("node\nsystem('touch X')"),
                                  std::string("a\tb"), std::string(256, 'n')}) {
    CAPTURE(host);
    in = preflight_input();
    in.doc["links"][0]["a"] = host;
    expect_preflight_error(in, "links[0].a must be a host name of 1 to 255 characters");
  }
}

TEST_CASE(
    "report_plot: preflight panels: bars by flag, median and threshold lines, a titled verdict") {
  const report::Plot p = report::preflight_plot(report::preflight_table(preflight_input()), "pf");
  CHECK(p.data_file == "pf.dat");
  CHECK(p.commands.find("set multiplot layout 2,2 title \"hvdrun preflight, threshold 0.7 x "
                        "median: flagged node2 and 2 links\"") != std::string::npos);
  CHECK(p.commands.find(
            "set xtics rotate by -30 (\"node1\" 0, \"node2\" 1, \"node3\" 2, \"node4\" 3)") !=
        std::string::npos);
  CHECK(p.commands.find("set xtics rotate by -30 (\"node1 <-> node2\" 0, \"node2 <-> node3\" 1, "
                        "\"node3 <-> node4\" 2, \"node4 <-> node1\" 3)") != std::string::npos);
  // Memory bars: ok ones blue, node2 red; the median and 0.7 x median as lines.
  CHECK(p.commands.find(
            "\"pf.dat\" index 0 using 1:($2 > 0 ? 1/0 : $3) with boxes lc rgb '#4682b4' "
            "title \"ok\", \"pf.dat\" index 0 using 1:($2 > 0 ? $3 : 1/0) with boxes lc rgb "
            "'#d62728' title \"flagged\", 40.2 with lines lw 2 lc rgb 'black' title "
            "\"median\", 28.14 with lines lw 2 dt 2 lc rgb '#d62728' title "
            "\"0.7 x median\"") != std::string::npos);
  CHECK(p.commands.find("index 0 using 1:($2 > 0 ? $4 : 1/0)") != std::string::npos);  // intra
  CHECK(p.commands.find("index 1 using 1:($2 > 0 ? $3 : 1/0)") != std::string::npos);  // link busbw
  CHECK(p.commands.find("722.857 with lines lw 2 dt 2 lc rgb '#d62728' title \"median / 0.7\"") !=
        std::string::npos);  // latency is flagged above median / threshold
  CHECK(p.commands.find("unset multiplot") != std::string::npos);
  CHECK(report::gnuplot_script({p}, {"png"}).find("set terminal pngcairo size 1400,1020") !=
        std::string::npos);
}

TEST_CASE("report_plot: a preflight host name reaches gnuplot only as a quoted literal") {
  report::Input in = preflight_input();
  const std::string attack = "n'2`touch X` @m $1 %s\" ; system(\"touch X\")";
  in.doc["nodes"][1]["host"] = attack;
  in.doc["links"][0]["b"] = attack;
  in.doc["nodes"][0]["intra_busbw_gbps"] = -1;  // one node without: that panel stays
  const report::Plot p = report::preflight_plot(report::preflight_table(in), "pf");
  // Every byte of the name that gnuplot could read as syntax is an octal escape; in tic labels
  // (a format too) % is doubled first.
  const std::string escaped =
      "n\\047\\062\\140touch X\\140 \\100m \\044\\061 \\045s\\042 \\073 system(\\042touch X\\042)";
  std::string in_tics = escaped;
  in_tics.replace(in_tics.find("\\045s"), 5, "\\045\\045s");
  CHECK(p.commands.find("median: flagged " + escaped + " and 2 links\"") != std::string::npos);
  CHECK(p.commands.find("\"" + in_tics + "\" 1") != std::string::npos);
  CHECK(p.commands.find("\"node1 <-> " + in_tics + "\" 0") != std::string::npos);
  CHECK(p.commands.find('`') == std::string::npos);
  CHECK(p.data.find("touch") == std::string::npos);  // the data file holds numbers only
  CHECK(p.commands.find("set multiplot layout 2,2") != std::string::npos);
}

TEST_CASE("report_plot: one node and no links is one panel, nothing flagged says so") {
  report::Input in = preflight_input();
  in.doc["nodes"] = json::array({in.doc["nodes"][3]});  // node4: one rank, no intra figure
  in.doc["links"] = json::array();
  const report::PreflightTable t = report::preflight_table(in);
  CHECK(report::to_gnuplot_data(t).find("links") == std::string::npos);
  const report::Plot p = report::preflight_plot(t, "pf");
  CHECK(p.commands.find("set multiplot layout 1,1 title \"hvdrun preflight, threshold 0.7 x "
                        "median: nothing flagged\"") != std::string::npos);
  CHECK(p.commands.find("index 1") == std::string::npos);
  CHECK(p.commands.find("$4") == std::string::npos);
  CHECK(p.commands.find("title \"flagged\"") == std::string::npos);
}

TEST_CASE("report_plot: a link between long host names is labelled with their first parts") {
  report::Input in = preflight_input();
  in.doc["links"][0]["a"] = "gpu017.rack3.cluster.example.org";
  in.doc["links"][0]["b"] = "gpu018.rack3.cluster.example.org";
  in.doc["links"][1]["a"] = "2001:db8::17";  // an address is kept whole
  in.doc["links"][1]["b"] = "gpu018.rack3.dc1.cluster.example.org";
  in.doc["links"][2]["a"] = "n3.example.org";  // short enough: kept whole
  const report::Plot p = report::preflight_plot(report::preflight_table(in), "pf");
  CHECK(p.commands.find("(\"gpu017 <-> gpu018\" 0, \"2001:db8::17 <-> gpu018\" 1, "
                        "\"n3.example.org <-> node4\" 2, \"node4 <-> node1\" 3)") !=
        std::string::npos);
}

// Found by report_json_fuzz: a number too large for a double escaped as json::out_of_range, which
// hvdrun reports as an internal error (exit 70).
TEST_CASE("report_data: a number too large for a double is invalid JSON naming the file") {
  CHECK_THROWS_WITH_AS(report::load_input(kDir + "number-overflow.json"),
                       doctest::Contains("number-overflow.json: not valid JSON"),
                       hvd::ConfigError);
}
