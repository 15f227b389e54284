// SPDX-License-Identifier: Apache-2.0
#include "why/native_stack.h"

#include <doctest/doctest.h>

namespace why = hvd::launcher::why;

namespace {

// eu-stack -p 3779 -m -s, of a program whose main thread waits in wait_for_data(), and a
// libhvd thread.
constexpr const char* kStack =
    "PID 3779 - process\n"
    "TID 3781:\n"
    "#0  0x00007fb84d645dd0 __GI___poll - /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "#1  0x0000556786231500 hvd::core::Runtime::loop() - /home/u/prog\n"
    "    /src/runtime/src/core/runtime.cc:512:7\n"
    "TID 3779:\n"
    "#0  0x00007fb84d645dd0 pause - /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "    ../sysdeps/unix/sysv/linux/pause.c:29:10\n"
    "#1  0x0000556786231142 wait_for_data - /home/u/prog\n"
    "    /home/u/prog.c:21:3\n"
    "#2  0x000055678623114d main - /home/u/prog\n"
    "    /home/u/prog.c:33:17\n";

}  // namespace

TEST_CASE("native stack: threads, frames with their modules and source lines") {
  const why::NativeThreads s = why::parse_native_stack(kStack);
  REQUIRE(s.threads.size() == 2);
  CHECK(s.threads[0].id == "3781");
  CHECK_FALSE(s.threads[0].main);
  CHECK(s.threads[1].main);
  REQUIRE(s.threads[1].frames.size() == 3);
  CHECK(s.threads[1].frames[1].function == "wait_for_data");
  CHECK(s.threads[1].frames[1].file == "/home/u/prog.c");
  CHECK(s.threads[1].frames[1].line == 21);
  CHECK(s.modules[1][0] == "/usr/lib/x86_64-linux-gnu/libc.so.6");
}

TEST_CASE("native stack: the user's frame skips libc, libhvd and hvd:: functions") {
  const why::NativeThreads s = why::parse_native_stack(kStack);
  const auto frame = why::native_user_frame(s, 1);
  REQUIRE(frame);
  CHECK(frame->label() == "`wait_for_data` (prog.c:21)");
  // The libhvd thread has no frame of the program's own: its innermost frame stands.
  CHECK(why::native_user_frame(s, 0)->function == "__GI___poll");
  CHECK_FALSE(why::native_user_frame(s, 2));
}

TEST_CASE("native stack: an error line from eu-stack gives no threads") {
  CHECK(why::parse_native_stack("eu-stack: dwfl_linux_proc_attach pid 12: Operation not permitted")
            .threads.empty());
}

TEST_CASE("native stack: a C++ frame is named without return type, template arguments or "
          "parameters") {
  CHECK(why::short_function_name("wait_for_data") == "wait_for_data");
  CHECK(why::short_function_name("hvd::core::Runtime::loop()") == "hvd::core::Runtime::loop");
  CHECK(why::short_function_name(
            "bool hvd::backends::ring::sleep_on_doorbell<hvd::backends::ring::ShmTransport::wait("
            "hvd::backends::ring::ShmTransport::Transfer&)::$_5 const&>(hvd::backends::ring::"
            "ShmDoorbell&, std::chrono::duration<long, std::ratio<1l, 1000000000l> >, "
            "hvd::backends::ring::ShmTransport::wait(hvd::backends::ring::ShmTransport::Transfer&)"
            "::$_5 const&)") == "hvd::backends::ring::sleep_on_doorbell");
  CHECK(why::short_function_name("void train<float>(Model&) const") == "train");
  CHECK(why::short_function_name("__libc_start_main@@GLIBC_2.34") ==
        "__libc_start_main@@GLIBC_2.34");
  CHECK(why::short_function_name("bool operator<(A const&, A const&)") ==
        "bool operator<(A const&, A const&)");
}

TEST_CASE("native stack: libhvd linked into the program: its C API and templates are not the "
          "user's frame") {
  const why::NativeThreads s = why::parse_native_stack(
      "PID 7 - process\n"
      "TID 7:\n"
      "#0  0x00007fb84d645dd0 __GI___poll - /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "#1  0x0000556786231500 bool hvd::backends::ring::sleep_on_doorbell<F>(D&, F const&) - "
      "/home/u/prog\n"
      "#2  0x0000556786231600 hvd_wait - /home/u/prog\n"
      "#3  0x000055678623114d main - /home/u/prog\n"
      "    /home/u/prog.c:40:5\n");
  const auto frame = why::native_user_frame(s, 0);
  REQUIRE(frame);
  CHECK(frame->label() == "`main` (prog.c:40)");
}
