// SPDX-License-Identifier: Apache-2.0
#include "config/data_dirs.h"

#include <doctest/doctest.h>

namespace config = hvd::launcher::config;

TEST_CASE("prepend_python_path: hvdrun's folders first, the user's entries kept whole") {
  CHECK(config::prepend_python_path({"/a", "/b"}, "") == "/a:/b");
  CHECK(config::prepend_python_path({"/a"}, "/u:/v") == "/a:/u:/v");
  CHECK(config::prepend_python_path({}, "/u") == "/u");
  // A folder the user already lists stays where the user put it, once.
  CHECK(config::prepend_python_path({"/a", "/b"}, "/u:/b") == "/a:/u:/b");
  // Empty entries (the current directory to Python) are the user's and are kept.
  CHECK(config::prepend_python_path({"/a"}, ":/u") == "/a::/u");
}

TEST_CASE("python_dirs: only folders that exist, the shim only when asked") {
  const auto plain = config::python_dirs(false);
  const auto compat = config::python_dirs(true);
  CHECK(compat.size() >= plain.size());
  for (const std::string& d : plain) CHECK(d.find("horovod-compat") == std::string::npos);
  if (!plain.empty()) CHECK(compat.front() == plain.front());
}
