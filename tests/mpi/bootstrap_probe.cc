// SPDX-License-Identifier: Apache-2.0
// bootstrap_probe: one rank of a real launch (hvdrun, mpirun, srun --mpi=pmix). It bootstraps,
// does a store round trip (each rank sets its rank, reads its neighbour's), gathers every
// rank's WorldInfo through the store and checks that they fit together, then prints one JSON
// line and exits 0 when everything holds, 1 otherwise:
//
//   {"method":"pmix","rank":1,"size":4,"local_rank":1,"local_size":2,"cross_rank":0,
//    "cross_size":2,"hostname":"node1","neighbour":2,"neighbour_value":"2","ok":true,
//    "problems":[]}
//
// usage: bootstrap_probe [--method M] [--size N] [--local-size L] [--cross-size C]
//   each option is an expectation checked on every rank.

#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bootstrap/bootstrap.h"
#include "env/env.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace {

namespace boot = hvd::bootstrap;
using hvd::str_cat;
using Json = nlohmann::ordered_json;

struct Expected {
  std::string method;
  int size = -1;
  int local_size = -1;
  int cross_size = -1;
};

Expected parse_args(int argc, char** argv) {
  Expected e;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) throw hvd::UsageError(str_cat(arg, ": needs a value"));
    const std::string value = argv[++i];
    if (arg == "--method") {
      e.method = value;
    } else if (arg == "--size") {
      e.size = std::stoi(value);
    } else if (arg == "--local-size") {
      e.local_size = std::stoi(value);
    } else if (arg == "--cross-size") {
      e.cross_size = std::stoi(value);
    } else {
      throw hvd::UsageError(str_cat("unknown option ", arg));
    }
  }
  return e;
}

Json to_json(const boot::WorldInfo& w) {
  return Json{{"method", w.method},
              {"rank", w.rank},
              {"size", w.size},
              {"local_rank", w.local_rank},
              {"local_size", w.local_size},
              {"cross_rank", w.cross_rank},
              {"cross_size", w.cross_size},
              {"hostname", w.hostname}};
}

// Every rank's view must fit together: one of each rank, local ranks 0..k-1 on each host,
// one cross rank per host, distinct across hosts.
void check_all(const std::vector<Json>& all, std::vector<std::string>& problems) {
  const int size = static_cast<int>(all.size());
  std::map<std::string, std::set<int>> local_ranks;
  std::map<std::string, std::set<int>> cross_ranks;
  std::map<int, std::string> host_of_cross;
  for (int r = 0; r < size; ++r) {
    const Json& w = all[static_cast<size_t>(r)];
    const std::string host = w["hostname"];
    if (w["rank"] != r) problems.push_back(str_cat("rank ", r, " reports rank ", w["rank"]));
    if (w["size"] != size) problems.push_back(str_cat("rank ", r, " reports size ", w["size"]));
    local_ranks[host].insert(w["local_rank"].get<int>());
    cross_ranks[host].insert(w["cross_rank"].get<int>());
    const int cross = w["cross_rank"];
    if (host_of_cross.emplace(cross, host).first->second != host) {
      problems.push_back(str_cat("cross rank ", cross, " is on two hosts"));
    }
  }
  for (int r = 0; r < size; ++r) {
    const Json& w = all[static_cast<size_t>(r)];
    const std::string host = w["hostname"];
    const int on_host = static_cast<int>(local_ranks[host].size());
    if (w["local_size"] != on_host || *local_ranks[host].rbegin() != on_host - 1) {
      problems.push_back(str_cat("rank ", r, ": local ", w["local_rank"], "/", w["local_size"],
                                 " but host ", host, " has local ranks 0..",
                                 *local_ranks[host].rbegin(), " of ", on_host, " distinct"));
    }
    if (cross_ranks[host].size() != 1)
      problems.push_back(str_cat("host ", host, ": cross ranks differ"));
    if (w["cross_size"] != static_cast<int>(local_ranks.size())) {
      problems.push_back(str_cat("rank ", r, ": cross_size ", w["cross_size"], " but ",
                                 local_ranks.size(), " hosts"));
    }
  }
}

void check_expected(const boot::WorldInfo& w, const Expected& e,
                    std::vector<std::string>& problems) {
  if (!e.method.empty() && w.method != e.method) {
    problems.push_back(str_cat("method ", w.method, ", expected ", e.method));
  }
  const auto expect = [&problems](const char* what, int got, int want) {
    if (want >= 0 && got != want) problems.push_back(str_cat(what, " ", got, ", expected ", want));
  };
  expect("size", w.size, e.size);
  expect("local_size", w.local_size, e.local_size);
  expect("cross_size", w.cross_size, e.cross_size);
}

int run(const Expected& expected) {
  const hvd::EnvMap& env = hvd::process_env();
  const boot::BootstrapOptions options = boot::bootstrap_options_from_env(env);
  boot::Bootstrapped b = boot::bootstrap(env, options);
  const boot::WorldInfo& w = b.world;
  boot::KvStore& store = *b.store;
  std::vector<std::string> problems;

  // The portable pattern: set, barrier, get.
  store.set(str_cat("probe/rank/", w.rank), std::to_string(w.rank));
  store.set(str_cat("probe/world/", w.rank), to_json(w).dump());
  store.barrier("probe/set", options.timeout);
  const int neighbour = (w.rank + 1) % w.size;
  const std::string got = store.get(str_cat("probe/rank/", neighbour), options.timeout);
  if (got != std::to_string(neighbour)) {
    problems.push_back(str_cat("neighbour ", neighbour, " stored '", got, "'"));
  }
  std::vector<Json> all;
  all.reserve(static_cast<size_t>(w.size));
  for (int r = 0; r < w.size; ++r) {
    all.push_back(Json::parse(store.get(str_cat("probe/world/", r), options.timeout)));
  }
  check_all(all, problems);
  check_expected(w, expected, problems);
  // Nobody tears down its store (MPI_Finalize, PMIx_Finalize) while others still read.
  store.barrier("probe/done", options.timeout);

  Json line = to_json(w);
  line["neighbour"] = neighbour;
  line["neighbour_value"] = got;
  line["ok"] = problems.empty();
  line["problems"] = problems;
  std::cout << line.dump() << std::endl;
  return problems.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_args(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "bootstrap_probe: error: " << e.what() << std::endl;
    return 1;
  }
}
