// SPDX-License-Identifier: Apache-2.0
// Compiled with a launcher target's include paths and -DHVD_PROBE_HEADER="<a private runtime
// header, or a launcher header above that target>"; the test passes only when this include is
// not found (tests/boundaries/CMakeLists.txt).
#include HVD_PROBE_HEADER
