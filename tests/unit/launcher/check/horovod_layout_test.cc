// SPDX-License-Identifier: Apache-2.0
#include "check/horovod_layout.h"

#include <doctest/doctest.h>

#include "cli/horovodrun_name.h"

namespace check = hvd::launcher::check;

TEST_CASE("horovod layout: Horovod 0.28.1's --check-build text, byte for byte") {
  check::BuildReport r;
  r.frameworks = {{"TensorFlow", false, false, ""}, {"PyTorch", true, true, "torch 2.11"},
                  {"MXNet", false, false, ""}};
  r.controllers = {{"MPI", true, false, "cannot load"}, {"PMIx", true, true, ""},
                   {"TCP", true, true, ""}};
  r.tensor_operations = {{"NCCL", true, true, "2.21"}, {"MPI", false, false, ""},
                         {"Built-in ring", true, true, ""}, {"CUDA", true, true, ""}};
  CHECK(check::format_horovod_text(r) ==
        "Horovod v0.28.1:\n"
        "\n"
        "Available Frameworks:\n"
        "    [ ] TensorFlow\n"
        "    [X] PyTorch\n"
        "    [ ] MXNet\n"
        "\n"
        "Available Controllers:\n"
        "    [ ] MPI\n"
        "    [X] Gloo\n"
        "\n"
        "Available Tensor Operations:\n"
        "    [X] NCCL\n"
        "    [ ] DDL\n"
        "    [ ] CCL\n"
        "    [ ] MPI\n"
        "    [X] Gloo    \n");
}

TEST_CASE("horovodrun name: only the last path component counts") {
  using hvd::launcher::cli::started_as_horovodrun;
  CHECK(started_as_horovodrun("horovodrun"));
  CHECK(started_as_horovodrun("/opt/hvdrun/bin/horovodrun"));
  CHECK_FALSE(started_as_horovodrun("/opt/horovodrun/bin/hvdrun"));
  CHECK_FALSE(started_as_horovodrun("horovodrun2"));
}
