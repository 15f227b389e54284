// SPDX-License-Identifier: Apache-2.0
#pragma once
// horovodrun options that hvdrun has no equivalent of. Site guides and scripts written for
// horovodrun pass them. Those that would change nothing here are dropped with a note (hvdrun
// starts no ssh, and its own transport already plays Gloo's part); the others stop the run
// with what to do instead, rather than an "unknown option" or a run other than the one asked.

#include <string>

namespace hvd::launcher::cli {

struct HorovodrunOnlyOption {
  int values;       // words it takes after it (0 for a flag)
  bool no_effect;   // true: dropped with a note; false: refused
  const char* why;  // the note, or what to do instead
};

/// The entry for `name` (as typed, e.g. "--gloo" or "-p"), or nullptr for any other word.
const HorovodrunOnlyOption* find_horovodrun_only(const std::string& name);

}  // namespace hvd::launcher::cli
