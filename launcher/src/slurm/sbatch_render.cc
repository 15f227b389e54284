// SPDX-License-Identifier: Apache-2.0
#include "slurm/sbatch_render.h"

#include <kainjow/mustache.hpp>

#include "hvd/build_config.h"
#include "hvd/error.h"
#include "slurm/srun_command.h"
#include "slurm/time_limit.h"

namespace hvd::launcher::slurm {
namespace {

namespace mstch = kainjow::mustache;

const profile::Partition* find_partition(const profile::SiteProfile& p, const std::string& name) {
  for (const profile::Partition& part : p.partitions) {
    if (part.name == name) return &part;
  }
  return nullptr;
}

std::string effective_partition(const BatchRequest& r, const profile::SiteProfile& p) {
  return r.partition.empty() ? p.partition : r.partition;
}

int gpus_per_node(const BatchRequest& r, const profile::SiteProfile& p) {
  return r.gpus_per_node >= 0 ? r.gpus_per_node : p.gpus_per_node;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

void check_limits(const BatchRequest& r, const profile::SiteProfile& p) {
  const std::string partition = effective_partition(r, p);
  const profile::Partition* part = find_partition(p, partition);
  const std::string limit = part != nullptr && !part->max_walltime.empty() ? part->max_walltime
                                                                           : p.max_walltime;
  if (!limit.empty() && parse_time_limit(r.time) > parse_time_limit(limit)) {
    throw UsageError(str_cat("-t ", r.time, " is over the ", limit, " limit of ",
                             part != nullptr ? "partition " + partition : "profile " + p.name,
                             "; ask for less time"));
  }
  if (part != nullptr && part->max_nodes > 0 && r.nodes > part->max_nodes) {
    throw UsageError(str_cat("-N ", r.nodes, " is more than partition ", partition, "'s ",
                             part->max_nodes, " nodes"));
  }
}

// kainjow treats every string as true; an empty one must be false to skip its section.
kainjow::mustache::data text_or_false(const std::string& text) {
  if (text.empty()) return kainjow::mustache::data::type::bool_false;
  return text;
}

// kainjow leaves an empty line where a skipped section's standalone tags stood (the mustache
// spec removes them); squeeze runs of empty lines so the script reads as the template does.
std::string squeeze_blank_lines(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' && out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') {
      continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

void check_batch_request(const BatchRequest& r, const profile::SiteProfile& p) {
  if (r.time.empty()) throw UsageError("-t/--time is required, e.g. -t 02:00:00");
  if (r.nodes < 1) throw UsageError(str_cat("-N: must be at least 1, got ", r.nodes));
  if (p.account_required && r.account.empty()) {
    throw UsageError(str_cat("profile ", p.name, " requires an account: pass -A/--account PROJECT"));
  }
  const int gpus = gpus_per_node(r, p);
  if (r.gpus_per_node > p.gpus_per_node) {
    throw UsageError(str_cat("--gpus-per-node ", gpus, ": ", p.name, " nodes have ",
                             p.gpus_per_node, " GPU(s)"));
  }
  parse_time_limit(r.time);  // a malformed time is an error even without a known limit
  check_limits(r, p);
}

std::vector<std::pair<std::string, std::string>> batch_directives(const BatchRequest& r,
                                                                  const profile::SiteProfile& p) {
  std::vector<std::pair<std::string, std::string>> d;
  const int gpus = gpus_per_node(r, p);
  const int tasks = r.ntasks_per_node > 0 ? r.ntasks_per_node
                                          : (gpus > 0 ? gpus : p.default_ranks_per_node());
  d.push_back({"--job-name=" + r.job_name, ""});
  d.push_back({"--nodes=" + std::to_string(r.nodes), ""});
  d.push_back({"--ntasks-per-node=" + std::to_string(tasks), "one rank per GPU"});
  d.push_back({"--time=" + r.time, ""});
  if (!r.account.empty()) d.push_back({"--account=" + r.account, ""});
  if (const std::string part = effective_partition(r, p); !part.empty()) {
    d.push_back({"--partition=" + part, ""});
  }
  if (const std::string qos = r.qos.empty() ? p.qos : r.qos; !qos.empty()) {
    d.push_back({"--qos=" + qos, ""});
  }
  if (!p.constraint.empty()) d.push_back({"--constraint=" + p.constraint, ""});
  if (gpus > 0) {
    const std::string request = replace_all(replace_all(p.gpu_request, "{gpus}", std::to_string(gpus)),
                                            "{gpu_type}", p.gpu_type);
    d.push_back({request, "the GPU request syntax of " + p.name});
  }
  if (p.cpus_per_task > 0) d.push_back({"--cpus-per-task=" + std::to_string(p.cpus_per_task), ""});
  if (r.exclusive) d.push_back({"--exclusive", ""});
  for (const profile::Directive& extra : p.directives) d.push_back({extra.flag, extra.reason});
  if (r.signal_lead_seconds > 0) {
    d.push_back({str_cat("--signal=B:", r.preempt_signal, "@", r.signal_lead_seconds),
                 "preemption notice to hvdrun, which forwards it to every rank"});
  }
  d.push_back({"--output=" + (r.log_file.empty() ? std::string("hvdrun-%j.out") : r.log_file), ""});
  for (const std::string& extra : r.extra_directives) d.push_back({extra, "from --sbatch-arg"});
  return d;
}

std::string render_batch_script(const BatchRequest& r, const profile::SiteProfile& p,
                                const std::string& template_text,
                                const std::string& template_name) {
  mstch::mustache tmpl(template_text);
  if (!tmpl.is_valid()) {
    throw ConfigError(str_cat(template_name, ": template error: ", tmpl.error_message()));
  }
  tmpl.set_custom_escape([](const std::string& s) { return s; });  // a shell script, not HTML
  mstch::data directives{mstch::data::type::list};
  for (const auto& [flag, reason] : batch_directives(r, p)) {
    directives << mstch::object{{"flag", flag}, {"reason", text_or_false(reason)}};
  }
  mstch::data modules{mstch::data::type::list}, setup{mstch::data::type::list};
  for (const std::string& m : p.modules) modules << mstch::object{{"name", m}};
  for (const std::string& line : p.setup_commands) setup << mstch::object{{"line", line}};
  mstch::data env{mstch::data::type::list};
  for (const profile::EnvVar& v : p.env) {
    env << mstch::object{{"name", v.name}, {"value", shell_quote(v.value)}, {"reason", v.reason},
                         {"unconfirmed", v.confirmed ? mstch::data::type::bool_false
                                                     : mstch::data::type::bool_true}};
  }
  mstch::data data;
  data.set("version", HVD_VERSION);
  data.set("profile", p.name);
  data.set("profile_source", p.source);
  data.set("directives", directives);
  data.set("modules", modules);
  data.set("has_modules", p.modules.empty() ? mstch::data::type::bool_false : mstch::data::type::bool_true);
  data.set("setup", setup);
  data.set("has_setup", p.setup_commands.empty() ? mstch::data::type::bool_false : mstch::data::type::bool_true);
  data.set("env", env);
  data.set("has_env", p.env.empty() ? mstch::data::type::bool_false : mstch::data::type::bool_true);
  data.set("preempt_signal", "SIG" + r.preempt_signal);
  data.set("launch", shell_join(r.launch));
  const std::string text = tmpl.render(data);
  if (!tmpl.is_valid()) {
    throw ConfigError(str_cat(template_name, ": template error: ", tmpl.error_message()));
  }
  return squeeze_blank_lines(text);
}

}  // namespace hvd::launcher::slurm
