// SPDX-License-Identifier: Apache-2.0
#include "slurm/sbatch_render.h"

#include <cstdio>

#include <kainjow/mustache.hpp>

#include "config/run_options.h"
#include "hvd/build_config.h"
#include "hvd/error.h"
#include "slurm/srun_command.h"
#include "slurm/time_limit.h"
#include "util/script_text.h"

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
  if (!limit.empty() && !r.time.empty() && parse_time_limit(r.time) > parse_time_limit(limit)) {
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

// Text for a comment line: a control character (a newline in a quoted argument of the program)
// would end the comment and start a shell line, so each is written as \xNN.
std::string comment_text(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

// The flags whose values go into #SBATCH lines as they are.
void check_request_text(const BatchRequest& r) {
  const auto check = [](const char* flag, const std::string& value) {
    if (util::find_control_char(value) == std::string::npos) return;
    throw UsageError(str_cat(flag, ": the value holds ", util::describe_control_char(value),
                             ", which would end its #SBATCH line and start a shell line; "
                             "give it on one line without control characters"));
  };
  check("-J/--job-name", r.job_name);
  check("-A/--account", r.account);
  check("-p/--partition", r.partition);
  check("-q/--qos", r.qos);
  check("-t/--time", r.time);
  check("--log", r.log_file);
  check("--preempt-signal", r.preempt_signal);
  for (const std::string& extra : r.extra_directives) check("--sbatch-arg", extra);
}

// The profile's values that reach the script outside shell quotes. The schema refuses control
// characters and odd module names when it loads a file; this catches a profile built any other
// way, before a bad value can turn into a shell line.
void check_profile_text(const profile::SiteProfile& p) {
  const auto check = [&](const std::string& field, const std::string& value) {
    if (util::find_control_char(value) == std::string::npos) return;
    throw ConfigError(str_cat("profile ", p.name, p.source.empty() ? "" : " (" + p.source + ")",
                              ": ", field, " holds ", util::describe_control_char(value),
                              "; batch scripts take one line per value"));
  };
  check("name", p.name);
  check("the profile's path", p.source);
  check("scheduler.partition", p.partition);
  check("scheduler.qos", p.qos);
  check("scheduler.constraint", p.constraint);
  check("scheduler.gpu_request", p.gpu_request);
  check("scheduler.gpu_type", p.gpu_type);
  for (size_t i = 0; i < p.directives.size(); ++i) {
    check(str_cat("scheduler.directives[", i, "].flag"), p.directives[i].flag);
    check(str_cat("scheduler.directives[", i, "].reason"), p.directives[i].reason);
  }
  for (size_t i = 0; i < p.modules.size(); ++i) {
    if (util::is_module_name(p.modules[i])) continue;
    throw ConfigError(str_cat("profile ", p.name, ": setup.modules[", i, "]: '", p.modules[i],
                              "' is not a module name (letters, digits and _.+-/@:=)"));
  }
  for (size_t i = 0; i < p.setup_commands.size(); ++i) {
    check(str_cat("setup.commands[", i, "]"), p.setup_commands[i]);
  }
  for (size_t i = 0; i < p.env.size(); ++i) {
    check(str_cat("env[", i, "].name"), p.env[i].name);
    check(str_cat("env[", i, "].reason"), p.env[i].reason);
  }
}

}  // namespace

int batch_gpus_per_node(const BatchRequest& r, const profile::SiteProfile& p) {
  return r.gpus_per_node >= 0 ? r.gpus_per_node : p.gpus_per_node;
}

int batch_tasks_per_node(const BatchRequest& r, const profile::SiteProfile& p) {
  const int gpus = batch_gpus_per_node(r, p);
  return r.ntasks_per_node > 0 ? r.ntasks_per_node : (gpus > 0 ? gpus : p.default_ranks_per_node());
}

void check_batch_request(const BatchRequest& r, const profile::SiteProfile& p) {
  if (r.time.empty()) throw UsageError("-t/--time is required, e.g. -t 02:00:00");
  if (p.account_required && r.account.empty()) {
    throw UsageError(str_cat("profile ", p.name, " requires an account: pass -A/--account PROJECT"));
  }
  check_batch_shape(r, p);
}

void check_batch_shape(const BatchRequest& r, const profile::SiteProfile& p) {
  check_request_text(r);
  if (r.nodes < 1) throw UsageError(str_cat("-N: must be at least 1, got ", r.nodes));
  // Before anything is sized by it: the preview lists every node (-N 2147483647 hung).
  const long long ranks = static_cast<long long>(r.nodes) * batch_tasks_per_node(r, p);
  if (ranks > config::kMaxRanks) {
    throw UsageError(str_cat("-N ", r.nodes, " x ", batch_tasks_per_node(r, p),
                             " ranks per node is ", ranks, " ranks; hvdrun starts at most ",
                             config::kMaxRanks, ": lower -N or --ntasks-per-node"));
  }
  const int gpus = batch_gpus_per_node(r, p);
  if (r.gpus_per_node > p.gpus_per_node) {
    throw UsageError(str_cat("--gpus-per-node ", gpus, ": ", p.name, " nodes have ",
                             p.gpus_per_node, " GPU(s)"));
  }
  // A malformed time is an error even without a known limit (--explain may leave it out).
  if (!r.time.empty()) parse_time_limit(r.time);
  check_limits(r, p);
}

std::vector<std::pair<std::string, std::string>> batch_directives(const BatchRequest& r,
                                                                  const profile::SiteProfile& p) {
  std::vector<std::pair<std::string, std::string>> d;
  const int gpus = batch_gpus_per_node(r, p);
  const int tasks = batch_tasks_per_node(r, p);
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
  if (r.requeue_on_signal) {
    d.push_back({"--requeue", "hvdrun requeues the job once every rank has checkpointed"});
    d.push_back({"--open-mode=append", "a requeued job adds to its log instead of emptying it"});
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
  check_request_text(r);
  check_profile_text(p);
  mstch::data directives{mstch::data::type::list};
  for (const auto& [flag, reason] : batch_directives(r, p)) {
    directives << mstch::object{{"flag", util::sbatch_quote(flag)}, {"reason", text_or_false(reason)}};
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
  data.set("requeue", r.requeue_on_signal ? mstch::data::type::bool_true
                                          : mstch::data::type::bool_false);
  data.set("launch", shell_join(r.launch));
  // The job id is known only in the job: the one unquoted part, a variable Slurm always sets.
  const std::string preflight =
      r.preflight.empty()
          ? std::string()
          : shell_join(r.preflight) + " --json \"hvdrun-preflight-${SLURM_JOB_ID}.json\"";
  data.set("preflight", preflight);
  data.set("has_preflight",
           r.preflight.empty() ? mstch::data::type::bool_false : mstch::data::type::bool_true);
  mstch::data explain{mstch::data::type::list};
  for (const std::string& line : r.explain) explain << mstch::object{{"line", comment_text(line)}};
  data.set("explain", explain);
  data.set("has_explain", r.explain.empty() ? mstch::data::type::bool_false : mstch::data::type::bool_true);
  const std::string text = tmpl.render(data);
  if (!tmpl.is_valid()) {
    throw ConfigError(str_cat(template_name, ": template error: ", tmpl.error_message()));
  }
  // A template of the user's own that leaves it out would drop the check without a word.
  if (!preflight.empty() && text.find(preflight) == std::string::npos) {
    throw ConfigError(str_cat(template_name, ": --preflight needs {{preflight}} in the template, "
                              "before the launch line (see the default template)"));
  }
  return squeeze_blank_lines(text);
}

}  // namespace hvd::launcher::slurm
