// SPDX-License-Identifier: Apache-2.0
#include "profile/profile_schema.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "binding/cpu_list.h"
#include "config/yaml_file.h"
#include "hvd/error.h"
#include "profile/profile_cross_checks.h"
#include "profile/profile_guards.h"
#include "profile/profile_merge.h"
#include "profile/profile_reader.h"
#include "util/script_text.h"

namespace hvd::launcher::profile {
namespace {

// ---- Reading the merged tree (Reader, profile_reader.h). Each key of the schema is one row of a
// table below; a row converts and checks its value, and read_fields() refuses keys that have no
// row.

template <typename T>
using Setter = std::function<void(const Reader&, const YAML::Node&, const std::string&, T&)>;

template <typename T>
struct Field {
  std::string key;
  Setter<T> set;
  bool required = false;
};

template <typename T>
void read_fields(const Reader& r, const YAML::Node& map, const std::string& path,
                 const std::vector<Field<T>>& fields, T& out) {
  std::vector<std::string> allowed;
  allowed.reserve(fields.size());
  for (const Field<T>& f : fields) allowed.push_back(f.key);
  r.keys(map, path, allowed);
  for (const Field<T>& f : fields) {
    const std::string p = join_key(path, f.key);
    if (const YAML::Node v = map[f.key]) {
      f.set(r, v, p, out);
    } else if (f.required) {
      r.missing(p);
    }
  }
}

// Value checks shared by several rows; each throws through Reader::fail.
using Check =
    std::function<void(const Reader&, const YAML::Node&, const std::string&, const std::string&)>;

const Check kAny = [](const Reader&, const YAML::Node&, const std::string&, const std::string&) {};

const Check kNonEmpty = [](const Reader& r, const YAML::Node& n, const std::string& p,
                           const std::string& v) {
  if (v.empty()) r.fail(p, n, "must not be empty");
};

const Check kWalltime = [](const Reader& r, const YAML::Node& n, const std::string& p,
                           const std::string& v) {
  static const std::regex form(
      R"((\d+)-(\d{1,2})(?::(\d{1,2})(?::(\d{1,2}))?)?|\d+(?::(\d{1,2})(?::(\d{1,2}))?)?)");
  std::smatch m;
  bool ok = std::regex_match(v, m, form) && (!m[2].matched || std::stoi(m[2]) < 24);
  for (int g : {3, 4, 5, 6}) ok = ok && (!m[g].matched || std::stoi(m[g]) < 60);
  if (!ok) {
    r.fail(p, n,
           str_cat("'", v,
                   "' is not a Slurm time limit (MINUTES, HH:MM:SS, DAYS-HH, "
                   "or DAYS-HH:MM:SS; leave the key out for no limit)"));
  }
};

Check one_of(const std::vector<std::string>& allowed) {
  return
      [allowed](const Reader& r, const YAML::Node& n, const std::string& p, const std::string& v) {
        if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return;
        std::string list;
        for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
        r.fail(p, n, str_cat("'", v, "' is not one of: ", list));
      };
}

const Check kEnvName = [](const Reader& r, const YAML::Node& n, const std::string& p,
                          const std::string& v) {
  static const std::regex name("[A-Za-z_][A-Za-z0-9_]*");
  if (!std::regex_match(v, name)) r.fail(p, n, str_cat("'", v, "' is not a variable name"));
};

const Check kRegex = [](const Reader& r, const YAML::Node& n, const std::string& p,
                        const std::string& v) {
  try {
    std::regex compiled(v);
  } catch (const std::regex_error& e) {
    r.fail(p, n, str_cat("'", v, "' is not a valid regular expression: ", e.what()));
  }
};

const Check kCpuList = [](const Reader& r, const YAML::Node& n, const std::string& p,
                          const std::string& v) {
  std::vector<int> cpus;
  try {
    cpus = binding::parse_cpu_list(v);
  } catch (const ConfigError& e) {
    r.fail(p, n, e.what());  // parse_cpu_list does not know the file or the key
  }
  if (cpus.empty()) r.fail(p, n, "names no CPUs");
};

const Check kModuleName = [](const Reader& r, const YAML::Node& n, const std::string& p,
                             const std::string& v) {
  if (v.empty()) r.fail(p, n, "must not be empty");
  if (!util::is_module_name(v)) {
    r.fail(p, n,
           str_cat("'", v,
                   "' is not a module name (a letter or digit, then letters, digits "
                   "and _.+-/@:=); each becomes `module load NAME` in batch scripts"));
  }
};

// setup.container: a list of words, each one argument. One string is taken as one word; a
// string with spaces was once split on them, so it is refused rather than guessed at.
Field<SiteProfile> container_words() {
  return {"container",
          [](const Reader& r, const YAML::Node& n, const std::string& p, SiteProfile& out) {
            out.container.clear();
            if (!n.IsSequence()) {
              out.container.push_back(r.text(n, p));
              if (out.container.back().find(' ') == std::string::npos) return;
              r.fail(p, n, "write it as a list of words, e.g. [apptainer, exec, --nv, X.sif]");
            }
            const std::vector<YAML::Node> items = r.items(n, p);
            for (size_t i = 0; i < items.size(); ++i) {
              out.container.push_back(r.text(items[i], str_cat(p, "[", i, "]")));
              kNonEmpty(r, items[i], str_cat(p, "[", i, "]"), out.container.back());
            }
          }};
}

template <typename T>
Field<T> text(const char* key, std::string T::*m, const Check& check = kAny,
              bool required = false) {
  return {key,
          [m, check](const Reader& r, const YAML::Node& n, const std::string& p, T& out) {
            out.*m = r.text(n, p);
            check(r, n, p, out.*m);
          },
          required};
}

template <typename T>
Field<T> number(const char* key, int T::*m, int min, int max = INT_MAX, bool required = false) {
  return {key,
          [m, min, max](const Reader& r, const YAML::Node& n, const std::string& p, T& out) {
            out.*m = r.number(n, p, min, max);
          },
          required};
}

template <typename T>
Field<T> flag(const char* key, bool T::*m) {
  return {key, [m](const Reader& r, const YAML::Node& n, const std::string& p, T& out) {
            out.*m = r.flag(n, p);
          }};
}

Field<SiteProfile> texts(const char* key, std::vector<std::string> SiteProfile::*m,
                         const Check& check = kAny) {
  return {key,
          [m, check](const Reader& r, const YAML::Node& n, const std::string& p, SiteProfile& out) {
            const std::vector<YAML::Node> items = r.items(n, p);
            (out.*m).clear();
            for (size_t i = 0; i < items.size(); ++i) {
              const std::string ip = str_cat(p, "[", i, "]");
              (out.*m).push_back(r.text(items[i], ip));
              check(r, items[i], ip, (out.*m).back());
            }
          }};
}

Field<SiteProfile> numbers(const char* key, std::vector<int> SiteProfile::*m) {
  return {key, [m](const Reader& r, const YAML::Node& n, const std::string& p, SiteProfile& out) {
            const std::vector<YAML::Node> items = r.items(n, p);
            (out.*m).clear();
            for (size_t i = 0; i < items.size(); ++i) {
              (out.*m).push_back(r.number(items[i], str_cat(p, "[", i, "]"), 0, INT_MAX));
            }
          }};
}

template <typename T>
Field<SiteProfile> records(const char* key, std::vector<T> SiteProfile::*m,
                           const std::vector<Field<T>>& fields) {
  return {key, [m, fields](const Reader& r, const YAML::Node& n, const std::string& p,
                           SiteProfile& out) {
            const std::vector<YAML::Node> items = r.items(n, p);
            (out.*m).clear();
            for (size_t i = 0; i < items.size(); ++i) {
              T record;
              read_fields(r, items[i], str_cat(p, "[", i, "]"), fields, record);
              (out.*m).push_back(std::move(record));
            }
          }};
}

Field<SiteProfile> section(const char* key, const std::vector<Field<SiteProfile>>& fields) {
  return {key, [fields](const Reader& r, const YAML::Node& n, const std::string& p,
                        SiteProfile& out) { read_fields(r, n, p, fields, out); }};
}

using P = SiteProfile;

// The schema's `scheduler:` row, the largest, apart to keep schema() short.
Field<P> scheduler_section() {
  // clang-format off
  return section("scheduler", {
      flag("account_required", &P::account_required),
      text("partition", &P::partition),
      text("qos", &P::qos),
      text("constraint", &P::constraint),
      text("gpu_request", &P::gpu_request),
      text("gpu_type", &P::gpu_type),
      records<Directive>("directives", &P::directives, {
          text("flag", &Directive::flag, kNonEmpty, true),
          text("reason", &Directive::reason, kNonEmpty, true)}),
      text("max_walltime", &P::max_walltime, kWalltime),
      records<Partition>("partitions", &P::partitions, {
          text("name", &Partition::name, kNonEmpty, true),
          text("max_walltime", &Partition::max_walltime, kWalltime),
          number("max_nodes", &Partition::max_nodes, 0),
          number("gpus_per_node", &Partition::gpus_per_node, 0)})});
  // clang-format on
}

// The schema; site-profiles/README.md documents each row.
const std::vector<Field<P>>& schema() {
  // clang-format off
  static const std::vector<Field<P>> rows = {
      text("name", &P::name, kNonEmpty, true),
      text("description", &P::description),
      {"extends", [](const Reader&, const YAML::Node&, const std::string&, P&) {}},  // merged
      section("detect", {
          texts("cluster_names", &P::cluster_names, kNonEmpty),
          texts("hostname_patterns", &P::hostname_patterns, kRegex)}),
      scheduler_section(),
      section("node", {
          number("gpus", &P::gpus_per_node, 0, 64, true),
          text("gpu_vendor", &P::gpu_vendor, one_of({"nvidia", "amd", "none"})),
          text("gpu_model", &P::gpu_model),
          number("cores", &P::cores_per_node, 0),
          number("numa_domains", &P::numa_domains, 1),
          numbers("gpu_numa", &P::gpu_numa),
          texts("gpu_cpus", &P::gpu_cpus, kCpuList),
          texts("nics", &P::nics, kNonEmpty)}),
      section("binding", {
          text("gpu_env", &P::gpu_env, kEnvName),
          numbers("gpu_order", &P::gpu_order),
          number("ranks_per_node", &P::ranks_per_node, 0),
          number("cpus_per_task", &P::cpus_per_task, 0),
          text("cpu_bind", &P::cpu_bind),
          text("gpu_bind", &P::gpu_bind)}),
      section("launch", {
          text("mpi", &P::mpi),
          texts("srun_args", &P::srun_args, kNonEmpty),
          text("net_plugin", &P::net_plugin)}),
      section("setup", {
          texts("modules", &P::modules, kModuleName),
          container_words(),
          texts("commands", &P::setup_commands, kNonEmpty)}),
      records<EnvVar>("env", &P::env, {
          text("name", &EnvVar::name, kEnvName, true),
          text("value", &EnvVar::value, kAny, true),
          text("reason", &EnvVar::reason, kNonEmpty, true),
          flag("confirmed", &EnvVar::confirmed)}),
      section("rendezvous", {
          number("master_port_base", &P::master_port_base, 0, 55535)}),
      texts("guards", &P::guards, one_of(known_guards())),
  };
  // clang-format on
  return rows;
}

}  // namespace

SiteProfile read_profile(const YAML::Node& root, const ProfileOrigins& origins) {
  const Reader r(origins);
  SiteProfile s;
  read_fields(r, root, "", schema(), s);
  if (!root["node"]) r.missing("node.gpus");
  if (!value_at(root, "binding", "gpu_env") && s.gpu_vendor == "amd") {
    s.gpu_env = "ROCR_VISIBLE_DEVICES";
  }
  check_across_keys(r, root, s);
  return s;
}

}  // namespace hvd::launcher::profile
