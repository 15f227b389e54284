// SPDX-License-Identifier: Apache-2.0
// hvdrun-docs: writes hvdrun(1) and hvdrun's bash completion from the CLI::App that hvdrun
// itself registers (cli::register_commands), at build time, so that neither can drift from the
// parser. Usage: hvdrun-docs MAN_PAGE_FILE BASH_COMPLETION_FILE

#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "docs/bash_completion.h"
#include "docs/cli_model.h"
#include "docs/man_page.h"
#include "hvd/build_config.h"

namespace {

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (out) return true;
  std::cerr << "hvdrun-docs: error: cannot write " << path << std::endl;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = hvd::launcher::cli;
  namespace docs = hvd::launcher::docs;
  if (argc != 3) {
    std::cerr << "usage: hvdrun-docs MAN_PAGE_FILE BASH_COMPLETION_FILE" << std::endl;
    return 2;
  }
  CLI::App app{"", "hvdrun"};
  cli::Commands commands;
  cli::register_commands(app, commands);
  const docs::CommandDoc root = docs::describe(app);
  std::string summary = cli::kHvdrunSummary;
  summary = summary.substr(summary.find(": ") + 2);  // "hvdrun: run ..." -> "run ..."
  const bool ok = write_file(argv[1], docs::render_man_page(root, summary, HVD_VERSION)) &&
                  write_file(argv[2], docs::render_bash_completion(root));
  return ok ? 0 : 1;
}
