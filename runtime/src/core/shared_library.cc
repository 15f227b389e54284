// SPDX-License-Identifier: Apache-2.0
// libhvd.so's own source: none. CMake needs one to make a shared library; its code is the
// static libhvd linked whole (runtime/CMakeLists.txt, hvd_shared).
