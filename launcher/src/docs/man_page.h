// SPDX-License-Identifier: Apache-2.0
#pragma once
// hvdrun(1) in roff (man(7) macros), from a CommandDoc.

#include <string>

#include "docs/cli_model.h"

namespace hvd::launcher::docs {

/// The whole man page. `summary` is the NAME line's text after "hvdrun \-"; `version` goes in
/// the header. No date, so that the same sources give the same page.
std::string render_man_page(const CommandDoc& root, const std::string& summary,
                            const std::string& version);

}  // namespace hvd::launcher::docs
