// SPDX-License-Identifier: Apache-2.0
#pragma once
// A list of byte strings as one byte string, for values that travel through a KvStore or an
// Exchange as a single blob: a u32 count, then for each string a u32 length and its bytes
// (lengths big-endian). Strings may hold any bytes, NUL included.

#include <string>
#include <string_view>
#include <vector>

namespace hvd::bootstrap {

std::string pack_strings(const std::vector<std::string>& parts);

/// Throws BootstrapError naming `what` when `packed` is truncated or has trailing bytes.
std::vector<std::string> unpack_strings(std::string_view packed, std::string_view what);

}  // namespace hvd::bootstrap
