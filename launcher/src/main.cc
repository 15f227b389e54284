// SPDX-License-Identifier: Apache-2.0
// hvdrun: builds the command line, runs the chosen command, and turns errors into one line on
// stderr and a distinct exit code (cli/exit_codes.h). The only place that catches.

#include <unistd.h>

#include <iostream>
#include <set>

#include <CLI/CLI.hpp>

#include "cli/argv_compat.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/horovodrun_name.h"
#include "cli/parse_error_text.h"
#include "cli/run_cmd.h"
#include "exec/fd_limit.h"

using namespace hvd::launcher;

int main(int argc, char** argv) {
  exec::raise_fd_limit();  // the store holds a connection per rank; children get theirs back
  const EnvMap env = env_from_array(environ);
  CLI::App app{"", "hvdrun"};
  cli::Commands commands;
  cli::register_commands(app, commands);
  // bin/horovodrun (a link to hvdrun) implies --horovod-compat; the flag's callback only ever
  // sets it, so giving it again changes nothing.
  if (argc > 0 && cli::started_as_horovodrun(argv[0])) commands.run.horovod_compat = true;
  // horovodrun's -np, -cb and -hostfile, before CLI11 reads them as bundles of short flags.
  // `hvdrun preflight -np 2` too: its options join the run command's.
  std::set<std::string> takes_value = cli::options_taking_value(app);
  takes_value.merge(cli::options_taking_value(*commands.preflight_cmd));
  try {
    std::vector<std::string> notes;
    std::vector<std::string> args =
        cli::normalize_horovodrun_args({argv, argv + argc}, takes_value, {"preflight"}, &notes);
    for (const std::string& note : notes) std::cerr << "hvdrun: note: " << note << std::endl;
    std::vector<char*> cargs;
    for (std::string& a : args) cargs.push_back(a.data());
    app.parse(static_cast<int>(cargs.size()), cargs.data());
    return cli::dispatch(app, commands, env);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "hvdrun: error: " << cli::parse_error_text(e, app) << std::endl;
    return cli::kExitUsage;
  } catch (const hvd::Error& e) {
    std::cerr << "hvdrun: error: " << e.what() << std::endl;
    return cli::exit_code_for(e.code());
  } catch (const std::exception& e) {
    std::cerr << "hvdrun: internal error: " << e.what() << std::endl;
    return cli::kExitInternal;
  }
}
