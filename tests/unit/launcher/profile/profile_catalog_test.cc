// SPDX-License-Identifier: Apache-2.0
#include "profile/profile_catalog.h"

#include <doctest/doctest.h>

#include <sstream>

#include <CLI/CLI.hpp>

#include "cli/profiles_cmd.h"
#include "hvd/error.h"

namespace profile = hvd::launcher::profile;
using hvd::launcher::EnvMap;

namespace {

const std::string kCatalog = HVD_TEST_DATA_DIR "/profiles/catalog";
const std::string kFirst = kCatalog + "/first";
const std::string kSecond = kCatalog + "/second";

// HOME points at a folder without .config/hvdrun, so the developer's own profiles stay out.
EnvMap env_with(const std::string& path) {
  return {{"HVDRUN_PROFILE_PATH", path}, {"HOME", kCatalog + "/no-home"}};
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string catalog_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const hvd::Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Parses `args` as `hvdrun profiles ...` and runs it, returning what it printed.
std::string run_profiles(const std::vector<std::string>& args, const EnvMap& env) {
  CLI::App app{"test"};
  CLI::App* profiles = hvd::launcher::cli::register_profiles_command(app);
  std::vector<std::string> argv = {"hvdrun", "profiles"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<const char*> cargs;
  cargs.reserve(argv.size());
  for (const std::string& a : argv) cargs.push_back(a.c_str());
  app.parse(static_cast<int>(cargs.size()), cargs.data());
  std::ostringstream out;
  const int code = hvd::launcher::cli::run_profiles_command(*profiles, env, out);
  return code == 0 ? out.str() : "(exit code " + std::to_string(code) + ")";
}

}  // namespace

TEST_CASE("profile catalog: search path order is user folders first, install last") {
  const std::vector<std::string> dirs =
      profile::profile_search_dirs({{"HVDRUN_PROFILE_PATH", "/a::/b"}, {"HOME", "/home/u"}});
  REQUIRE(dirs.size() >= 3);
  CHECK(dirs[0] == "/a");
  CHECK(dirs[1] == "/b");
  CHECK(dirs[2] == "/home/u/.config/hvdrun");
  CHECK(profile::profile_search_dirs({}).size() <= 1);  // only the install's folder, if found
}

TEST_CASE("profile catalog: the first file of a name wins and later ones are shadowed") {
  const std::vector<profile::ProfileEntry> all = profile::scan_profiles({kFirst, kSecond});
  std::vector<std::string> names;
  names.reserve(all.size());
  for (const auto& e : all) names.push_back(e.name);
  CHECK(names ==
        std::vector<std::string>{"alpha", "beta", "kid", "alpha", "gamma", "local", "local"});
  CHECK(all[0].shadowed_by.empty());
  CHECK(all[3].path == kSecond + "/alpha.yaml");
  CHECK(all[3].shadowed_by == kFirst + "/alpha.yaml");
  CHECK(all[5].shadowed_by.empty());
  CHECK(all[6].path.empty());  // the embedded one, shadowed by second/local.yaml
  CHECK(all[6].shadowed_by == kSecond + "/local.yaml");

  const std::vector<profile::ProfileEntry> alone = profile::scan_profiles({});
  REQUIRE(alone.size() == 1);
  CHECK(alone[0].name == "local");
  CHECK(alone[0].shadowed_by.empty());
}

TEST_CASE("profile catalog: list loads each profile and reports broken ones") {
  const std::vector<profile::ProfileEntry> all =
      profile::list_profiles(env_with(kFirst + ":" + kCatalog + "/broken"));
  REQUIRE(all.size() >= 5);
  CHECK(all[0].name == "alpha");
  CHECK(all[0].description == "alpha in first");
  CHECK(all[3].name == "broken");
  CHECK(all[3].error ==
        kCatalog + "/broken/broken.yaml:3:9: node.gpus: expected an integer, got 'many'");
  CHECK(all[2].name == "kid");
  CHECK(all[2].error.rfind(kFirst + "/kid.yaml:3:10: extends: no site profile named 'gamma'", 0) ==
        0);
}

TEST_CASE("profile catalog: find by name, by path, and extends through the search path") {
  const EnvMap env = env_with(kFirst + ":" + kSecond);
  CHECK(profile::find_profile("alpha", env).description == "alpha in first");
  CHECK(profile::find_profile(kSecond + "/alpha.yaml", env).description ==
        "alpha in second (shadowed)");
  const profile::SiteProfile kid = profile::find_profile("kid", env);
  CHECK(kid.gpus_per_node == 2);
  CHECK(kid.gpu_env == "ROCR_VISIBLE_DEVICES");
  CHECK(kid.sources == std::vector<std::string>{kSecond + "/gamma.yaml", kFirst + "/kid.yaml"});
  CHECK(profile::find_profile("local", env).description ==
        "a local.yaml that shadows the embedded one");
  // Without a local.yaml in the path, the embedded one; a build tree or install ships one.
  const std::string local = profile::find_profile("local", env_with(kFirst)).source;
  CHECK((local.empty() || ends_with(local, "/site-profiles/local.yaml")));

  const std::string unknown = catalog_error_of([&] { profile::find_profile("nope", env); });
  CHECK(unknown.rfind("unknown site profile 'nope' (known: alpha, ", 0) == 0);
  for (const char* name : {" beta,", " gamma,", " kid,", " local"}) {
    CHECK(unknown.find(name) != std::string::npos);
  }
  CHECK(unknown.find("searched: " + kFirst + ", " + kSecond) != std::string::npos);
  CHECK(catalog_error_of([&] {
          profile::find_profile("missing.yaml", env);
        }).rfind("missing.yaml: cannot read: ", 0) == 0);
}

TEST_CASE("profile catalog: detection by cluster name first, then by full hostname match") {
  const EnvMap env = env_with(kFirst + ":" + kSecond);
  EnvMap slurm = env;
  slurm["SLURM_CLUSTER_NAME"] = "betacluster";
  CHECK(profile::detect_profile(slurm, "gamma-1") == "beta");
  slurm["SLURM_CLUSTER_NAME"] = "unknowncluster";
  CHECK(profile::detect_profile(slurm, "gamma-1") ==
        "kid");  // inherits gamma's patterns, found first
  CHECK(profile::detect_profile(env, "alpha-login3") == "alpha");
  CHECK(profile::detect_profile(env, "shared-host") == "beta");          // first in search order
  CHECK(profile::detect_profile(env, "alpha-login3x") == std::nullopt);  // full match only
  CHECK(profile::detect_profile(env, "nomatch") == std::nullopt);
  CHECK(catalog_error_of([&] { profile::detect_profile(env_with(kCatalog + "/broken"), "x"); }) ==
        kCatalog + "/broken/broken.yaml:3:9: node.gpus: expected an integer, got 'many'");
}

TEST_CASE("profiles command: list, show and validate") {
  const EnvMap env = env_with(kFirst + ":" + kSecond);
  const std::string list = run_profiles({"list"}, env);
  CHECK(list.rfind("alpha ", 0) == 0);
  CHECK(list.find(" " + kFirst + "/alpha.yaml\n") < list.find(" alpha in first\n"));
  CHECK(list.find("[shadowed by " + kFirst + "/alpha.yaml] alpha in second") != std::string::npos);
  const size_t embedded = list.find("(embedded)\n");
  REQUIRE(embedded != std::string::npos);
  CHECK(list.find("[shadowed by " + kSecond + "/local.yaml]", embedded) != std::string::npos);

  const std::string show = run_profiles({"show", "kid"}, env);
  CHECK(show.rfind("# site profile 'kid', merged from (later files win):\n#   " + kSecond +
                       "/gamma.yaml\n#   " + kFirst + "/kid.yaml\nname: kid\n",
                   0) == 0);
  CHECK(show.find("extends") == std::string::npos);
  CHECK(show.find("gpu_vendor: amd") != std::string::npos);
  const std::string local = run_profiles({"show", "local"}, env_with(kFirst));
  CHECK((local.find("#   <embedded>/local.yaml\n") != std::string::npos ||
         local.find("/site-profiles/local.yaml\n") != std::string::npos));
  CHECK(local.find("name: local\n") != std::string::npos);

  CHECK(run_profiles({"validate", kFirst + "/alpha.yaml", kFirst + "/beta.yaml"}, env) ==
        kFirst + "/alpha.yaml: ok\n" + kFirst + "/beta.yaml: ok\n");
  CHECK_THROWS_WITH_AS(run_profiles({"validate", kCatalog + "/broken/broken.yaml"}, env),
                       (kCatalog + "/broken/broken.yaml:3:9: node.gpus: expected an integer, "
                                   "got 'many'")
                           .c_str(),
                       hvd::ConfigError);
}
