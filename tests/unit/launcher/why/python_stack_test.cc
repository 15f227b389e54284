// SPDX-License-Identifier: Apache-2.0
#include "why/python_stack.h"

#include <doctest/doctest.h>

namespace why = hvd::launcher::why;

namespace {

// As Python 3.11's faulthandler writes it: a worker thread got the signal, not the main one.
constexpr const char* kDump =
    "Thread 0x00007f3c7d1ff6c0 (most recent call first):\n"
    "  File \"/usr/lib/python3.11/threading.py\", line 320 in wait\n"
    "  File \"/usr/lib/python3.11/threading.py\", line 1002 in _bootstrap\n"
    "\n"
    "Current thread 0x00007f3c8e1b2740 (most recent call first):\n"
    "  File \"/usr/lib/python3.11/threading.py\", line 320 in wait\n"
    "  File \"/usr/lib/python3.11/queue.py\", line 171 in get\n"
    "  File \"/home/u/train.py\", line 88 in next_batch\n"
    "  File \"/home/u/train.py\", line 120 in <module>\n";

}  // namespace

TEST_CASE("python stack: the main thread is the one that runs a module's top level") {
  const std::vector<why::ThreadStack> threads = why::parse_python_stack(kDump);
  REQUIRE(threads.size() == 2);
  CHECK_FALSE(threads[0].main);
  CHECK(threads[1].main);
  CHECK(threads[1].id == "0x00007f3c8e1b2740");
  REQUIRE(threads[1].frames.size() == 4);
  CHECK(threads[1].frames[2].function == "next_batch");
  CHECK(threads[1].frames[2].file == "/home/u/train.py");
  CHECK(threads[1].frames[2].line == 88);
}

TEST_CASE("python stack: the user's frame skips the standard library and installed packages") {
  const std::vector<why::ThreadStack> threads = why::parse_python_stack(kDump);
  const auto frame = why::python_user_frame(*why::main_thread(threads));
  REQUIRE(frame);
  CHECK(frame->label() == "`next_batch` (train.py:88)");

  why::ThreadStack binding;
  binding.frames = {{"synchronize", "/x/lib/hvdrun/python/hvdrun/torch/mpi_ops.py", 40},
                    {"allreduce", "/venv/lib/python3.11/site-packages/hvd_ctypes.py", 12},
                    {"train_step", "/home/u/train.py", 30}};
  CHECK(why::python_user_frame(binding)->function == "train_step");
  SUBCASE("all library frames: the innermost one") {
    binding.frames.pop_back();
    CHECK(why::python_user_frame(binding)->function == "synchronize");
  }
}

TEST_CASE("python stack: text that is not a dump gives no threads, and no frame") {
  CHECK(why::parse_python_stack("").empty());
  CHECK(why::parse_python_stack("garbage\n  File \"x.py\", line").empty());
  CHECK_FALSE(why::python_user_frame(why::ThreadStack{}));
}
